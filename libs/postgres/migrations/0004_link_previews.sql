-- Read model: the destination's preview metadata, from LinkPreviewFetched and
-- LinkPreviewFailed on the links topic. No row means the preview is pending.
CREATE TABLE link_previews (
  link_id uuid PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('ready', 'failed')),
  title text,
  description text,
  image text,
  final_url text,
  reason text,
  -- When the event happened; a replayed or older event never overwrites a newer one.
  occurred_at timestamptz NOT NULL,
  event_id uuid NOT NULL UNIQUE
);
