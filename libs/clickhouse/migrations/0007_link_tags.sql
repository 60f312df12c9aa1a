-- Each link's current tag, for the reads that group or filter clicks by tag
-- (the account analytics' tag roll-up, the export's `tag=`): they join this
-- table in ClickHouse instead of writing a tag's link ids into the statement.
-- Fed from the links topic by the projector: LinkCreated and LinkUpdated write
-- the link's whole tag ('' for none) with `deleted` 0; LinkDeleted writes a
-- row with `deleted` 1 and no tag. The engine keeps the newest row by version
-- for each (link, deleted), so a deleted link keeps its last tag (its clicks
-- stay counted under it) beside the fact of its deletion. Readers take
-- argMax(tag, version) over the `deleted` = 0 rows, exact before any merge.
-- A new consumer group reads the links topic (kept for ever) from its start:
-- that pass is the fill of existing links. Documented in docs/clickhouse.md.
CREATE TABLE IF NOT EXISTS link_tags (
  account_id UUID,
  link_id UUID,
  deleted UInt8,
  tag String,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (account_id, link_id, deleted)
SETTINGS non_replicated_deduplication_window = 100000;
