-- The click projector's ledger: per partition, the last batch it took on and
-- whether that batch is in ClickHouse yet. A batch is claimed here ('pending')
-- before its insert and marked 'inserted' after it, before the offsets are
-- committed to Kafka; the row stays, so it always says how far ClickHouse has
-- the partition. Every claim goes through this row, so two owners of one
-- partition at once (a member the group has already replaced, finishing its
-- batch) can never insert overlapping batches: one re-forms the other's
-- pending batch exactly (same deduplication token), or skips what is inserted.
ALTER TABLE click_projection_ranges
  ADD COLUMN state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'inserted'));
