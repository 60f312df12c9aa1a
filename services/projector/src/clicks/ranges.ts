import type { Pool } from 'pg';

export interface OffsetRange {
  first: bigint;
  last: bigint;
}

/** Where the batch in flight of each partition is written down (Postgres `click_projection_ranges`). */
export interface RangeStore {
  get(partition: number): Promise<OffsetRange | null>;
  record(partition: number, range: OffsetRange): Promise<void>;
  clear(partition: number): Promise<void>;
  /**
   * Drops a range that ends before `committed`: its batch was committed by an
   * owner that died before clearing it. Conditional, so a newer range that
   * another instance records meanwhile stays.
   */
  clearSettled(partition: number, committed: bigint): Promise<void>;
}

export function postgresRangeStore(pool: Pool, groupId: string, topic: string): RangeStore {
  return {
    async get(partition) {
      const { rows } = await pool.query<{ first_offset: string; last_offset: string }>(
        `SELECT first_offset, last_offset FROM click_projection_ranges
          WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = $3`,
        [groupId, topic, partition],
      );
      const row = rows[0];
      return row ? { first: BigInt(row.first_offset), last: BigInt(row.last_offset) } : null;
    },
    async record(partition, range) {
      await pool.query(
        `INSERT INTO click_projection_ranges (consumer_group, topic, kafka_partition, first_offset, last_offset)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (consumer_group, topic, kafka_partition)
         DO UPDATE SET first_offset = EXCLUDED.first_offset, last_offset = EXCLUDED.last_offset, recorded_at = now()`,
        [groupId, topic, partition, range.first.toString(), range.last.toString()],
      );
    },
    async clear(partition) {
      await pool.query(
        'DELETE FROM click_projection_ranges WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = $3',
        [groupId, topic, partition],
      );
    },
    async clearSettled(partition, committed) {
      await pool.query(
        `DELETE FROM click_projection_ranges
          WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = $3 AND last_offset < $4`,
        [groupId, topic, partition, committed.toString()],
      );
    },
  };
}
