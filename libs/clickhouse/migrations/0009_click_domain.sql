-- The branded domain a click's link is on (docs/domains.md), as DNS writes
-- it; '' for the installation's own domain, as every click before the column
-- reads without being rewritten. A slug is unique per domain, so (domain,
-- slug) names a link; link_id always does. Documented in docs/clickhouse.md.
ALTER TABLE clicks ADD COLUMN IF NOT EXISTS domain LowCardinality(String) DEFAULT '';
