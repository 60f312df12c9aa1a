-- Per account: the aggregates GET /api/v1/analytics reads. Each is the
-- per-link data summed over the account's links: clicks are sums, visitors
-- are mergeable uniqExact states (merged, never summed, so a visitor of two
-- links counts once). The visitor key is the 128-bit one of link_uniques.
-- Documented in docs/clickhouse.md.

-- Per account per UTC day: the totals, and the `day` grouping.
CREATE TABLE IF NOT EXISTS account_daily (
  account_id UUID,
  day Date,
  clicks SimpleAggregateFunction(sum, UInt64),
  visitors AggregateFunction(uniqExact, UInt128)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, day)
SETTINGS non_replicated_deduplication_window = 100000;

CREATE MATERIALIZED VIEW IF NOT EXISTS account_daily_mv TO account_daily AS
SELECT
  account_id,
  toDate(clicked_at) AS day,
  toUInt64(count()) AS clicks,
  uniqExactState(reinterpretAsUInt128(unhex(substring(visitor_hash, 1, 32)))) AS visitors
FROM clicks
GROUP BY account_id, day;

-- Per account per UTC day per link: the `link` grouping, and the `tag` one
-- (the links of a tag, named at query time by their current tag).
CREATE TABLE IF NOT EXISTS account_link_daily (
  account_id UUID,
  day Date,
  link_id UUID,
  slug SimpleAggregateFunction(any, String),
  clicks SimpleAggregateFunction(sum, UInt64),
  visitors AggregateFunction(uniqExact, UInt128)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, day, link_id)
SETTINGS non_replicated_deduplication_window = 100000;

CREATE MATERIALIZED VIEW IF NOT EXISTS account_link_daily_mv TO account_link_daily AS
SELECT
  account_id,
  toDate(clicked_at) AS day,
  link_id,
  any(slug) AS slug,
  toUInt64(count()) AS clicks,
  uniqExactState(reinterpretAsUInt128(unhex(substring(visitor_hash, 1, 32)))) AS visitors
FROM clicks
GROUP BY account_id, day, link_id;

-- Per account per UTC day per value of referrer, country, device, browser.
CREATE TABLE IF NOT EXISTS account_daily_breakdown (
  account_id UUID,
  day Date,
  dimension LowCardinality(String),
  value String,
  clicks SimpleAggregateFunction(sum, UInt64),
  visitors AggregateFunction(uniqExact, UInt128)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, dimension, day, value)
SETTINGS non_replicated_deduplication_window = 100000;

CREATE MATERIALIZED VIEW IF NOT EXISTS account_daily_breakdown_mv TO account_daily_breakdown AS
SELECT
  account_id,
  toDate(clicked_at) AS day,
  pair.1 AS dimension,
  pair.2 AS value,
  toUInt64(count()) AS clicks,
  uniqExactState(reinterpretAsUInt128(unhex(substring(visitor_hash, 1, 32)))) AS visitors
FROM clicks
ARRAY JOIN [
  ('referrer', toString(referrer)),
  ('country', toString(country)),
  ('device', toString(device)),
  ('browser', toString(browser))
] AS pair
GROUP BY account_id, day, dimension, value;

-- The clicks recorded before this migration. The projector applies it before
-- it inserts clicks, so nothing reaches the views while these run; another
-- click projector inserting meanwhile would have its clicks counted twice
-- here (docs/clickhouse.md, "Account aggregates": how to check and refill).
INSERT INTO account_daily
SELECT
  account_id,
  toDate(clicked_at) AS day,
  toUInt64(count()) AS clicks,
  uniqExactState(reinterpretAsUInt128(unhex(substring(visitor_hash, 1, 32)))) AS visitors
FROM clicks
GROUP BY account_id, day;

INSERT INTO account_link_daily
SELECT
  account_id,
  toDate(clicked_at) AS day,
  link_id,
  any(slug) AS slug,
  toUInt64(count()) AS clicks,
  uniqExactState(reinterpretAsUInt128(unhex(substring(visitor_hash, 1, 32)))) AS visitors
FROM clicks
GROUP BY account_id, day, link_id;

INSERT INTO account_daily_breakdown
SELECT
  account_id,
  toDate(clicked_at) AS day,
  pair.1 AS dimension,
  pair.2 AS value,
  toUInt64(count()) AS clicks,
  uniqExactState(reinterpretAsUInt128(unhex(substring(visitor_hash, 1, 32)))) AS visitors
FROM clicks
ARRAY JOIN [
  ('referrer', toString(referrer)),
  ('country', toString(country)),
  ('device', toString(device)),
  ('browser', toString(browser))
] AS pair
GROUP BY account_id, day, dimension, value;
