-- Redirects answered but not counted as clicks (crawlers, HEAD, prefetches,
-- no user agent, HTTP libraries), per link, UTC day, reason and crawler
-- family: one row per RedirectsFiltered event and key. Nothing else of a
-- request is kept. An event delivered twice writes the same rows again under
-- the same flush_id, which the engine keeps once; readers use FINAL, so a
-- count is exact before the merge too. account_id leads the key: every read
-- names its account. Documented in docs/clickhouse.md.
CREATE TABLE IF NOT EXISTS redirects_filtered (
  account_id UUID,
  link_id UUID,
  day Date,
  reason LowCardinality(String),
  family LowCardinality(String),
  flush_id UUID,
  count UInt64
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, link_id, day, reason, family, flush_id)
SETTINGS non_replicated_deduplication_window = 100000;

-- Requests for a path that is no link, per UTC day, for operators: the slug
-- itself is visitor text and is not kept. Deduplicated as above; on a
-- cluster, sharded by flush_id (it has no link or account).
CREATE TABLE IF NOT EXISTS unknown_slug_hits (
  day Date,
  flush_id UUID,
  hits UInt64
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, flush_id)
SETTINGS non_replicated_deduplication_window = 100000;
