-- One row per counted click (bots, HEAD requests and prefetches are never
-- recorded). Written only by the projector, in batches that carry an
-- insert_deduplication_token, so a replayed batch is dropped here and in every
-- materialized view below. Documented in docs/clickhouse.md.
CREATE TABLE IF NOT EXISTS clicks (
  event_id UUID,
  link_id UUID,
  account_id UUID,
  slug String,
  clicked_at DateTime64(3, 'UTC'),
  -- Hex HMAC-SHA256 of the visitor's IP under the installation's secret.
  visitor_hash FixedString(64),
  -- URL origin of the referrer, or 'Direct'.
  referrer LowCardinality(String),
  -- ISO 3166-1 alpha-2, or 'XX' when unknown.
  country LowCardinality(FixedString(2)),
  device LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  -- Where the event came from in Kafka: lineage for audits and replays.
  source_partition UInt16,
  source_offset UInt64
) ENGINE = MergeTree
PARTITION BY toYYYYMM(clicked_at)
ORDER BY (link_id, clicked_at, event_id)
SETTINGS non_replicated_deduplication_window = 100000;

-- Per link per UTC day: clicks, and the visitor set as a mergeable state so
-- that unique visitors over any range are exact (never a sum of daily counts).
CREATE TABLE IF NOT EXISTS link_daily (
  link_id UUID,
  day Date,
  clicks SimpleAggregateFunction(sum, UInt64),
  visitors AggregateFunction(uniqExact, FixedString(64))
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (link_id, day)
SETTINGS non_replicated_deduplication_window = 100000;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_daily_mv TO link_daily AS
SELECT
  link_id,
  toDate(clicked_at) AS day,
  toUInt64(count()) AS clicks,
  uniqExactState(visitor_hash) AS visitors
FROM clicks
GROUP BY link_id, day;

-- Per link per UTC day: clicks by referrer, country, device, browser and os.
CREATE TABLE IF NOT EXISTS link_daily_breakdown (
  link_id UUID,
  day Date,
  dimension LowCardinality(String),
  value String,
  clicks UInt64
) ENGINE = SummingMergeTree(clicks)
PARTITION BY toYYYYMM(day)
ORDER BY (link_id, dimension, day, value)
SETTINGS non_replicated_deduplication_window = 100000;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_daily_breakdown_mv TO link_daily_breakdown AS
SELECT
  link_id,
  toDate(clicked_at) AS day,
  pair.1 AS dimension,
  pair.2 AS value,
  toUInt64(count()) AS clicks
FROM clicks
ARRAY JOIN [
  ('referrer', toString(referrer)),
  ('country', toString(country)),
  ('device', toString(device)),
  ('browser', toString(browser)),
  ('os', toString(os))
] AS pair
GROUP BY link_id, day, dimension, value;
