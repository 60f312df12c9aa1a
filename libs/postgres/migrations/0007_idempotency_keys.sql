-- The write API's Idempotency-Key records (README, "Idempotent retries"). Per
-- account and key: a hash of the request (method, route, canonical body) and,
-- once the request was answered, the response it got, replayed to every retry.
-- A row with no response is a request still at work, held by `owner` (a token
-- the process drew); a holder that died is taken over once its lease ran out.
-- Rows older than the 24 h retention are ignored, taken over by a new request,
-- and deleted by the write API.
CREATE TABLE idempotency_keys (
  account_id uuid NOT NULL,
  idempotency_key text NOT NULL,
  request_hash text NOT NULL,
  owner uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  response_status smallint,
  response_headers jsonb,
  response_body text,
  PRIMARY KEY (account_id, idempotency_key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
