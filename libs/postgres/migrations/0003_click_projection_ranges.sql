-- The click projector's batch in flight, per partition: recorded before the
-- batch is inserted into ClickHouse and removed after its offsets are
-- committed. After a crash or a rebalance the next owner of the partition
-- re-forms exactly this batch, so ClickHouse sees the same deduplication token
-- and drops what was already inserted.
CREATE TABLE click_projection_ranges (
  consumer_group text NOT NULL,
  topic text NOT NULL,
  kafka_partition integer NOT NULL,
  first_offset bigint NOT NULL,
  last_offset bigint NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer_group, topic, kafka_partition)
);
