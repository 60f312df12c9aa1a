-- Secrets an installation generates for itself on first use, so that a
-- deployment without explicit configuration is still safe (no secret shipped
-- as a default) and stable across restarts.
CREATE TABLE instance_secrets (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
