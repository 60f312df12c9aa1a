-- Which of a link's redirect rules, or which of its weighted variants, chose
-- a click's destination (docs/redirect-rules.md): the position in the link's
-- list, -1 for none. Every click before these columns went to its link's own
-- destination and reads as -1 without being rewritten. Documented in
-- docs/clickhouse.md.
ALTER TABLE clicks ADD COLUMN IF NOT EXISTS rule Int8 DEFAULT -1;
ALTER TABLE clicks ADD COLUMN IF NOT EXISTS variant Int8 DEFAULT -1;

-- Per link per UTC day per rule or variant: clicks, and the visitor set as a
-- mergeable state, so an A/B test's unique visitors over any range are exact.
-- Only routed clicks are written: a link without rules or variants has no row.
CREATE TABLE IF NOT EXISTS link_daily_routes (
  link_id UUID,
  day Date,
  kind LowCardinality(String),
  position Int8,
  clicks SimpleAggregateFunction(sum, UInt64),
  visitors AggregateFunction(uniqExact, FixedString(64))
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (link_id, day, kind, position)
SETTINGS non_replicated_deduplication_window = 100000;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_daily_rules_mv TO link_daily_routes AS
SELECT
  link_id,
  toDate(clicked_at) AS day,
  'rule' AS kind,
  rule AS position,
  toUInt64(count()) AS clicks,
  uniqExactState(visitor_hash) AS visitors
FROM clicks
WHERE rule >= 0
GROUP BY link_id, day, kind, position;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_daily_variants_mv TO link_daily_routes AS
SELECT
  link_id,
  toDate(clicked_at) AS day,
  'variant' AS kind,
  variant AS position,
  toUInt64(count()) AS clicks,
  uniqExactState(visitor_hash) AS visitors
FROM clicks
WHERE variant >= 0
GROUP BY link_id, day, kind, position;
