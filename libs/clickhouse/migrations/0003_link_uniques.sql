-- Per link: the set of all its visitors, as one exact uniqExact state (merged
-- by background merges into about one row per link). The API's `all` range is
-- the link's whole life, so its unique visitors are this set's size: reading
-- one serialized set costs a few milliseconds, where counting a busy link's
-- distinct rows in link_visitors costs tens (measured 7.8 against 32 ms in the
-- engine for 200 000 visitors). Same 128-bit visitor key as link_visitors.
CREATE TABLE IF NOT EXISTS link_uniques (
  link_id UUID,
  visitors AggregateFunction(uniqExact, UInt128)
) ENGINE = AggregatingMergeTree
ORDER BY link_id
SETTINGS non_replicated_deduplication_window = 100000;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_uniques_mv TO link_uniques AS
SELECT
  link_id,
  uniqExactState(reinterpretAsUInt128(unhex(substring(visitor_hash, 1, 32)))) AS visitors
FROM clicks
GROUP BY link_id;

-- Clicks already there. Running it again, or racing inserts the view already
-- took, only adds visitors the sets hold: a union is idempotent.
INSERT INTO link_uniques
SELECT
  link_id,
  uniqExactState(reinterpretAsUInt128(unhex(substring(visitor_hash, 1, 32)))) AS visitors
FROM clicks
GROUP BY link_id;
