-- One ClickHouse insert for the batches of several partitions. Each insert
-- costs the engine a part in `clicks` and in each aggregate table however few
-- clicks it holds, so the click projector sends the batches of all the
-- partitions it has in hand together (services/projector, click-insert-groups.ts).
--
-- Such an insert's deduplication token names the whole group, so whoever
-- finishes a group after its owner died must send exactly the same rows, and
-- may not hold the other partitions' records. The rows are therefore kept
-- here, written in the same transaction that binds each batch's ledger row to
-- the group's token, before the insert; the next owner of any of its
-- partitions sends them again under the same token. A group's rows are
-- deleted once none of its batches is pending.
CREATE TABLE click_insert_groups (
  consumer_group text NOT NULL,
  topic text NOT NULL,
  insert_token text NOT NULL,
  -- The rows exactly as they were sent: a JSON array of rows, each the values
  -- of the `clicks` columns in the table's order (services/projector, click-rows.ts).
  click_rows text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer_group, topic, insert_token)
);

-- The group a pending batch was bound to. Null: not bound yet, so nothing of
-- it was sent, but by a projector of an earlier version, which sent each
-- batch alone under its range's token; such a batch is sent alone again.
ALTER TABLE click_projection_ranges ADD COLUMN insert_token text;

-- Kept as written: compressing them on the way in (pglz, PostgreSQL's
-- default for long values) more than doubled the cost of keeping an
-- insert's rows (20,000 rows: 139-150 ms against 60-61 ms), and they live
-- for one insert.
ALTER TABLE click_insert_groups ALTER COLUMN click_rows SET STORAGE EXTERNAL;
