-- The link list's search (GET /api/v1/links?search=) moves its trigram
-- indexes from the write model's claims to the `links` projection.
--
-- Measured (`npm run bench -- create`, one quiet 2-core machine): with the two
-- GIN trigram indexes on slug_claims every create paid for them twice (the
-- claim's INSERT, then its commit, an UPDATE that cannot be HOT since it sets
-- the indexed list position), and the trigrams every URL shares ("htt",
-- "://", "com") make hot posting lists: 703 links/s, p99 248 ms at 50
-- connections; without them 2,426 links/s, p99 44 ms. On the projection the
-- cost is paid by the link projector, off the create's path.
--
-- The price: a search finds a link once it is projected (in well under a
-- second; README, GET /api/v1/links). The list itself, and tag filters, still
-- read the committed claims, so a new link is listed at once.
DROP INDEX slug_claims_slug_trgm;
DROP INDEX slug_claims_destination_trgm;
CREATE INDEX links_slug_trgm ON links USING gin (slug gin_trgm_ops);
CREATE INDEX links_destination_trgm ON links USING gin (destination_url gin_trgm_ops);
