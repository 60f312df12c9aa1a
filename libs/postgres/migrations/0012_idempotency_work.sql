-- What a request under an Idempotency-Key creates is named from its work: the
-- link and event ids of its links are drawn from `work_id` and the request's
-- hash (services/write-api, work-identity.ts). A request that takes the key
-- over from a holder that died, or that answered 5xx (`abandoned`: kept, no
-- longer deleted, so its `work_id` survives), draws the same ids, finds that
-- holder's slug claims and finishes them, instead of making a second link or
-- finding its own claim "taken". A new request after the 24 h retention gets a
-- new `work_id`. Rows from before this migration have none: a takeover gives
-- them one.
ALTER TABLE idempotency_keys
  ADD COLUMN work_id uuid,
  ADD COLUMN abandoned boolean NOT NULL DEFAULT false;
