-- What started a click: 'qr' for a scan of the link's QR code, 'link' for
-- everything else (every click before this column was a followed link, and
-- reads as 'link' without being rewritten). Documented in docs/clickhouse.md.
ALTER TABLE clicks ADD COLUMN IF NOT EXISTS trigger LowCardinality(String) DEFAULT 'link';

-- Per link per UTC day: the scans, as 'trigger' rows of the breakdown table.
-- Only scans are written: a link's followed clicks are its total less its
-- scans, so the days before this view need no backfill to be exact.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_daily_scans_mv TO link_daily_breakdown AS
SELECT
  link_id,
  toDate(clicked_at) AS day,
  'trigger' AS dimension,
  toString(trigger) AS value,
  toUInt64(count()) AS clicks
FROM clicks
WHERE trigger != 'link'
GROUP BY link_id, day, dimension, value;
