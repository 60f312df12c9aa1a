-- Webhooks: an account's endpoints, what each is sent, and the deliveries on
-- their way (docs/webhooks.md). The write API owns `webhooks` and
-- `webhook_secrets`; the webhook dispatcher fills and drains
-- `webhook_deliveries` and writes `webhook_attempts`.
CREATE TABLE webhooks (
  webhook_id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  url text NOT NULL,
  -- A non-empty subset of link.created, link.updated, link.deleted, link.clicked.
  events text[] NOT NULL,
  description text,
  enabled boolean NOT NULL DEFAULT true,
  -- Why a disabled endpoint is: 'user' (PATCH enabled=false), 'gone' (it
  -- answered 410) or 'failing' (it failed every attempt for 24 hours).
  disabled_reason text,
  disabled_at timestamptz,
  -- The first failed attempt since the last success: 24 hours later the
  -- endpoint is disabled.
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX webhooks_by_account ON webhooks (account_id, created_at, webhook_id);

-- Signing secrets, sealed (encrypted) as docs/webhooks.md says, never stored
-- in the clear. The newest signs every delivery; after a rotation the one
-- before keeps signing beside it until `expires_at` (24 hours).
CREATE TABLE webhook_secrets (
  webhook_id uuid NOT NULL REFERENCES webhooks ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  sealed text NOT NULL,
  expires_at timestamptz,
  PRIMARY KEY (webhook_id, created_at)
);

-- The durable queue of each endpoint: one row per message still to deliver.
-- `message_id` is the webhook-id header, the same on every retry of the
-- message (and on a replay of it). Messages with the same `ordering_key` (a
-- link's id) go to one endpoint one after another, in `delivery_id` order.
-- A delivered message leaves the queue; every attempt is kept in
-- `webhook_attempts`.
CREATE TABLE webhook_deliveries (
  delivery_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id uuid NOT NULL REFERENCES webhooks ON DELETE CASCADE,
  message_id text NOT NULL,
  event_type text NOT NULL,
  ordering_key text,
  -- The body exactly as it is sent, every attempt: {type, timestamp, data}.
  payload text NOT NULL,
  -- The replay this message belongs to, if it is one.
  replay_id uuid,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now()
);
-- An event read twice from the log (a consumer restarted before it committed)
-- is queued once per endpoint; a replay queues its own copy.
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (webhook_id, message_id) WHERE replay_id IS NULL;
CREATE UNIQUE INDEX webhook_deliveries_once_per_replay ON webhook_deliveries (webhook_id, message_id, replay_id)
  WHERE replay_id IS NOT NULL;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (webhook_id, next_attempt_at);

-- Every attempt to deliver a message, kept 7 days, for
-- GET /api/v1/webhooks/{id}/deliveries.
CREATE TABLE webhook_attempts (
  attempt_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id uuid NOT NULL REFERENCES webhooks ON DELETE CASCADE,
  message_id text NOT NULL,
  event_type text NOT NULL,
  attempt integer NOT NULL,
  replay boolean NOT NULL DEFAULT false,
  attempted_at timestamptz NOT NULL,
  -- The endpoint's status, or null when it gave none (then `error` says why:
  -- timeout, connection refused, refused address…).
  response_status smallint,
  error text,
  latency_ms integer NOT NULL
);
CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, attempt_id DESC);
CREATE INDEX webhook_attempts_age ON webhook_attempts (attempted_at);

-- Replays asked through the API: the dispatcher reads the topics again from
-- `since` (to `until`, or to where it stood when asked) and queues every
-- matching event of the webhook's account for this endpoint.
CREATE TABLE webhook_replays (
  replay_id uuid PRIMARY KEY,
  webhook_id uuid NOT NULL REFERENCES webhooks ON DELETE CASCADE,
  since timestamptz NOT NULL,
  until timestamptz,
  events text[] NOT NULL,
  requested_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX webhook_replays_unfinished ON webhook_replays (requested_at) WHERE finished_at IS NULL;
