-- Who runs a replay (services/webhook-dispatcher, replay-runs.ts): a
-- dispatcher claims an unfinished replay by setting `lease_until` and keeps
-- moving it ahead while it reads the log; another dispatcher takes the replay
-- over only once the lease has run out (its holder died). `started_at` is
-- when it was first taken.
ALTER TABLE webhook_replays
  ADD COLUMN started_at timestamptz,
  ADD COLUMN lease_until timestamptz;
