-- The branded domain a click's link is on (docs/domains.md), as DNS writes
-- it; '' for the installation's own domain, as every click before the column
-- reads without being rewritten. A slug is unique per domain, so (domain,
-- slug) names a link; link_id always does. Documented in docs/clickhouse.md.
ALTER TABLE clicks ADD COLUMN IF NOT EXISTS domain LowCardinality(String) DEFAULT '';

-- The account's clicks by domain (`GET /api/v1/analytics?groupBy=domain`): a
-- fifth dimension of account_daily_breakdown, its own view, so the four of
-- migration 0005 stay as they are. The clicks recorded before it were all on
-- the installation's own domain (''); they are counted here once, before the
-- projector inserts again, as migration 0005 counted them.
CREATE MATERIALIZED VIEW IF NOT EXISTS account_daily_domains_mv TO account_daily_breakdown AS
SELECT
  account_id,
  toDate(clicked_at) AS day,
  'domain' AS dimension,
  toString(domain) AS value,
  toUInt64(count()) AS clicks,
  uniqExactState(reinterpretAsUInt128(unhex(substring(visitor_hash, 1, 32)))) AS visitors
FROM clicks
GROUP BY account_id, day, dimension, value;

INSERT INTO account_daily_breakdown
SELECT
  account_id,
  toDate(clicked_at) AS day,
  'domain' AS dimension,
  toString(domain) AS value,
  toUInt64(count()) AS clicks,
  uniqExactState(reinterpretAsUInt128(unhex(substring(visitor_hash, 1, 32)))) AS visitors
FROM clicks
GROUP BY account_id, day, dimension, value;
