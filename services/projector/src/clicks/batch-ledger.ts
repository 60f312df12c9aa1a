import type { Pool } from 'pg';
import { inTransaction } from '@shortlink/postgres';

export interface OffsetRange {
  first: bigint;
  last: bigint;
}

/** What the ledger lets a projector do with the records it has in hand, from the first of them. */
export type Claim =
  /** Insert exactly this range: the one proposed, or a pending one another owner started (re-formed, same token). */
  | { kind: 'insert'; range: OffsetRange }
  /** ClickHouse has every record up to `through` already: skip them (and commit past them). */
  | { kind: 'skip'; through: bigint };

/**
 * The click projector's ledger in Postgres (`click_projection_ranges`, one
 * row per partition; see migrations 0003 and 0005): the authority on which
 * batch of a partition is inserted next and how far ClickHouse has it.
 */
export interface BatchLedger {
  /** Claims the next batch of `partition`, proposing `proposed` (its first offset is the first record in hand). */
  claim(partition: number, proposed: OffsetRange): Promise<Claim>;
  /** Marks a claimed batch inserted; false when another owner has since moved the partition on (abandon the batch). */
  settle(partition: number, range: OffsetRange): Promise<boolean>;
  /** The ledger's row for `partition`, for operators and tests. */
  get(partition: number): Promise<(OffsetRange & { state: 'pending' | 'inserted' }) | null>;
}

/** The rule of a claim, given the partition's row (pure, so it can be read and tested apart from SQL). */
export function decideClaim(
  row: (OffsetRange & { state: 'pending' | 'inserted' }) | null,
  proposed: OffsetRange,
): { claim: Claim; record: OffsetRange | null } {
  if (row?.state === 'inserted' && proposed.first <= row.last) {
    return { claim: { kind: 'skip', through: row.last }, record: null };
  }
  if (row?.state === 'pending' && row.first >= proposed.first) {
    return { claim: { kind: 'insert', range: { first: row.first, last: row.last } }, record: null };
  }
  // Nothing in flight at or after these records (a pending row before them
  // can only be left by a manual offset reset): this batch is the next one.
  return { claim: { kind: 'insert', range: proposed }, record: proposed };
}

export function postgresBatchLedger(pool: Pool, groupId: string, topic: string): BatchLedger {
  const key = [groupId, topic] as const;
  type Row = { first_offset: string; last_offset: string; state: 'pending' | 'inserted' };
  const toRange = (row: Row) => ({ first: BigInt(row.first_offset), last: BigInt(row.last_offset), state: row.state });
  return {
    claim(partition, proposed) {
      return inTransaction(pool, async (client) => {
        for (;;) {
          // The row lock makes concurrent claims on one partition take turns.
          const { rows } = await client.query<Row>(
            `SELECT first_offset, last_offset, state FROM click_projection_ranges
              WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = $3 FOR UPDATE`,
            [...key, partition],
          );
          const row = rows[0];
          const { claim, record } = decideClaim(row ? toRange(row) : null, proposed);
          if (record && row) {
            await client.query(
              `UPDATE click_projection_ranges
                  SET first_offset = $4, last_offset = $5, state = 'pending', recorded_at = now()
                WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = $3`,
              [...key, partition, record.first.toString(), record.last.toString()],
            );
          } else if (record) {
            // No row yet, so nothing was locked: two first claims can both get
            // here. The insert waits for the other's; the loser decides again
            // against the winner's row, as if it had come second.
            const inserted = await client.query(
              `INSERT INTO click_projection_ranges
                 (consumer_group, topic, kafka_partition, first_offset, last_offset, state)
               VALUES ($1, $2, $3, $4, $5, 'pending')
               ON CONFLICT (consumer_group, topic, kafka_partition) DO NOTHING`,
              [...key, partition, record.first.toString(), record.last.toString()],
            );
            if (inserted.rowCount !== 1) continue;
          }
          return claim;
        }
      });
    },
    async settle(partition, range) {
      const { rowCount } = await pool.query(
        `UPDATE click_projection_ranges SET state = 'inserted', recorded_at = now()
          WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = $3
            AND first_offset = $4 AND last_offset = $5 AND state = 'pending'`,
        [...key, partition, range.first.toString(), range.last.toString()],
      );
      return rowCount === 1;
    },
    async get(partition) {
      const { rows } = await pool.query<Row>(
        `SELECT first_offset, last_offset, state FROM click_projection_ranges
          WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = $3`,
        [...key, partition],
      );
      return rows[0] ? toRange(rows[0]) : null;
    },
  };
}
