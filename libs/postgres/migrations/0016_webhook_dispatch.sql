-- What the webhook dispatcher's claim asks of each endpoint's queue
-- (services/webhook-dispatcher, delivery-queue.ts): whether a message has an
-- earlier one of the same link still queued. Only the head of each link's
-- line is sent, so one link's events reach an endpoint in order; without this
-- index each such question would read the endpoint's whole queue.
CREATE INDEX webhook_deliveries_line ON webhook_deliveries (webhook_id, ordering_key, delivery_id)
  WHERE ordering_key IS NOT NULL;
