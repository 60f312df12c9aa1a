-- Links change (PATCH) and go away (DELETE). The write model's claim row
-- carries the current state, so reads and redirect cache misses see a change
-- the moment it commits, as they see a creation; `version` orders the changes
-- of one link (1 at creation, one more per change). A deleted link keeps its
-- row: its slug stays taken for good, so a printed short URL can never be
-- claimed by someone else.
ALTER TABLE slug_claims
  ADD COLUMN version integer NOT NULL DEFAULT 1,
  ADD COLUMN updated_at timestamptz,
  ADD COLUMN deleted_at timestamptz;

-- The projection follows LinkUpdated / LinkDeleted; `version` makes a replayed
-- or late event a no-op (it never moves a link back to an older state).
ALTER TABLE links
  ADD COLUMN version integer NOT NULL DEFAULT 1,
  ADD COLUMN updated_at timestamptz,
  ADD COLUMN deleted_at timestamptz;

-- Changes committed in Postgres whose event the event log has not confirmed
-- yet. Written in the change's own transaction and removed once the append is
-- acknowledged; the write API appends what is left here again (appending an
-- event twice is harmless: consumers apply it by version and event id).
CREATE TABLE link_change_outbox (
  event_id uuid PRIMARY KEY,
  slug text NOT NULL,
  version integer NOT NULL,
  event text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX link_change_outbox_age ON link_change_outbox (created_at);

-- Redirectors that currently listen for link changes. Each listening
-- connection holds a short lease it renews on that same connection; a change
-- waits until every redirector leased at its commit has confirmed it dropped
-- the slug, or until that redirector's lease ran out (by then the redirector
-- itself has stopped trusting its cache).
CREATE TABLE redirector_leases (
  listener_id uuid PRIMARY KEY,
  expires_at timestamptz NOT NULL
);

-- Which destination a preview was fetched for: after a change of URL the old
-- preview no longer describes the link, and the API shows `pending` until the
-- new one is fetched. `link_version` orders outcomes of different destinations.
ALTER TABLE link_previews
  ADD COLUMN link_version integer NOT NULL DEFAULT 1,
  ADD COLUMN destination_url text;
UPDATE link_previews p SET destination_url = l.destination_url FROM links l WHERE l.link_id = p.link_id;
