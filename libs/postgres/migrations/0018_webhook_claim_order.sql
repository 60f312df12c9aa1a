-- The webhook dispatcher's claim takes each endpoint's due messages in
-- (next_attempt_at, delivery_id) order and stops at a few
-- (services/webhook-dispatcher, delivery-queue.ts). With the id in the index
-- the scan is read in that order and stops there; without it, messages queued
-- in one statement share their next_attempt_at and every one of them was read
-- and sorted, so a claim cost grew with the queue.
CREATE INDEX webhook_deliveries_due_order ON webhook_deliveries (webhook_id, next_attempt_at, delivery_id);
DROP INDEX webhook_deliveries_due;
