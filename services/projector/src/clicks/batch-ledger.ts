import type { Pool } from 'pg';
import { inTransaction } from '@shortlink/postgres';
import { clickRowsFromText, clickRowsText, type ClickRow } from './click-rows';

export interface OffsetRange {
  first: bigint;
  last: bigint;
}

/** A partition's batch: consecutive offsets. */
export interface PartitionBatch {
  partition: number;
  range: OffsetRange;
}

/** What the ledger lets a projector do with the records it has in hand, from the first of them. */
export type Claim =
  /**
   * Send exactly this range, in a group of its own or with other partitions' batches
   * (`click-insert-groups.ts`): the range proposed, or a pending one another owner
   * claimed and never bound to a group. `alone`: such a batch may have been sent by a
   * projector of an earlier version, alone under its range's token, so it goes alone again.
   */
  | { kind: 'insert'; range: OffsetRange; alone: boolean }
  /** This range was bound to a group whose insert may have gone in: send the group's rows again under its token. */
  | { kind: 'resend'; range: OffsetRange; token: string }
  /** ClickHouse has every record up to `through` already: skip them (and commit past them). */
  | { kind: 'skip'; through: bigint };

/** A partition's row: its last batch, whether ClickHouse has it yet, and the group it was bound to. */
export type LedgerRow = OffsetRange & { state: 'pending' | 'inserted'; token: string | null };

/**
 * The click projector's ledger in Postgres (`click_projection_ranges`, one
 * row per partition, and `click_insert_groups`; see migrations 0003, 0005 and
 * 0014): the authority on which batch of a partition is inserted next, which
 * insert it went in, and how far ClickHouse has it.
 */
export interface BatchLedger {
  /** Claims the next batch of `partition`, proposing `proposed` (its first offset is the first record in hand). */
  claim(partition: number, proposed: OffsetRange): Promise<Claim>;
  /**
   * Binds each of these claimed batches that is still pending and bound to no group
   * to the group `token`, and records the rows the group's insert sends, made by
   * `rowsOf` from the batches bound, in one transaction. Returns the partitions bound;
   * the others were moved on or bound by another owner (claim them again).
   */
  bind(token: string, batches: PartitionBatch[], rowsOf: (bound: PartitionBatch[]) => ClickRow[]): Promise<number[]>;
  /** The rows a group's insert sent; null once none of its batches is pending. */
  groupRows(token: string): Promise<ClickRow[] | null>;
  /** Marks a batch bound to `token` inserted; false when another owner has since moved the partition on (abandon the batch). */
  settle(partition: number, range: OffsetRange, token: string): Promise<boolean>;
  /** The ledger's row for `partition`, for operators and tests. */
  get(partition: number): Promise<LedgerRow | null>;
}

/** The rule of a claim, given the partition's row (pure, so it can be read and tested apart from SQL). */
export function decideClaim(
  row: LedgerRow | null,
  proposed: OffsetRange,
): { claim: Claim; record: OffsetRange | null } {
  if (row?.state === 'inserted' && proposed.first <= row.last) {
    return { claim: { kind: 'skip', through: row.last }, record: null };
  }
  if (row?.state === 'pending' && row.first >= proposed.first) {
    const range = { first: row.first, last: row.last };
    return {
      claim: row.token === null ? { kind: 'insert', range, alone: true } : { kind: 'resend', range, token: row.token },
      record: null,
    };
  }
  // Nothing in flight at or after these records (a pending row before them
  // can only be left by a manual offset reset): this batch is the next one.
  return { claim: { kind: 'insert', range: proposed, alone: false }, record: proposed };
}

export function postgresBatchLedger(pool: Pool, groupId: string, topic: string): BatchLedger {
  const key = [groupId, topic] as const;
  type Row = { first_offset: string; last_offset: string; state: 'pending' | 'inserted'; insert_token: string | null };
  const toRow = (row: Row): LedgerRow => ({
    first: BigInt(row.first_offset),
    last: BigInt(row.last_offset),
    state: row.state,
    token: row.insert_token,
  });
  return {
    claim(partition, proposed) {
      return inTransaction(pool, async (client) => {
        for (;;) {
          // The row lock makes concurrent claims on one partition take turns.
          const { rows } = await client.query<Row>(
            `SELECT first_offset, last_offset, state, insert_token FROM click_projection_ranges
              WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = $3 FOR UPDATE`,
            [...key, partition],
          );
          const row = rows[0];
          const { claim, record } = decideClaim(row ? toRow(row) : null, proposed);
          if (record && row) {
            await client.query(
              `UPDATE click_projection_ranges
                  SET first_offset = $4, last_offset = $5, state = 'pending', insert_token = NULL, recorded_at = now()
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
    bind(token, batches, rowsOf) {
      return inTransaction(pool, async (client) => {
        const column = <T>(f: (b: PartitionBatch) => T) => batches.map(f);
        // Locked in partition order, as every bind locks them, so two binds of overlapping groups cannot deadlock.
        const { rows } = await client.query<{ kafka_partition: number }>(
          `SELECT r.kafka_partition FROM click_projection_ranges r
             JOIN unnest($3::int[], $4::bigint[], $5::bigint[]) AS b(p, f, l)
               ON r.kafka_partition = b.p AND r.first_offset = b.f AND r.last_offset = b.l
            WHERE r.consumer_group = $1 AND r.topic = $2 AND r.state = 'pending' AND r.insert_token IS NULL
            ORDER BY r.kafka_partition
              FOR UPDATE OF r`,
          [
            ...key,
            column((b) => b.partition),
            column((b) => b.range.first.toString()),
            column((b) => b.range.last.toString()),
          ],
        );
        const boundPartitions = new Set(rows.map((r) => Number(r.kafka_partition)));
        const bound = batches.filter((b) => boundPartitions.has(b.partition));
        if (bound.length === 0) return [];
        await client.query(
          `UPDATE click_projection_ranges SET insert_token = $4
            WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = ANY($3::int[])`,
          [...key, bound.map((b) => b.partition), token],
        );
        await client.query(
          `INSERT INTO click_insert_groups (consumer_group, topic, insert_token, click_rows) VALUES ($1, $2, $3, $4)`,
          [...key, token, clickRowsText(rowsOf(bound))],
        );
        return bound.map((b) => b.partition);
      });
    },
    async groupRows(token) {
      const { rows } = await pool.query<{ click_rows: string }>(
        `SELECT click_rows FROM click_insert_groups WHERE consumer_group = $1 AND topic = $2 AND insert_token = $3`,
        [...key, token],
      );
      return rows[0] ? clickRowsFromText(rows[0].click_rows) : null;
    },
    settle(partition, range, token) {
      return inTransaction(pool, async (client) => {
        // The group's row first: the settles of one group take turns, so the last one sees the others and
        // deletes the rows (under READ COMMITTED, two at once would each see the other still pending).
        await client.query(
          `SELECT 1 FROM click_insert_groups
            WHERE consumer_group = $1 AND topic = $2 AND insert_token = $3 FOR UPDATE`,
          [...key, token],
        );
        const { rowCount } = await client.query(
          `UPDATE click_projection_ranges SET state = 'inserted', recorded_at = now()
            WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = $3
              AND first_offset = $4 AND last_offset = $5 AND state = 'pending' AND insert_token = $6`,
          [...key, partition, range.first.toString(), range.last.toString(), token],
        );
        if (rowCount !== 1) return false;
        await client.query(
          `DELETE FROM click_insert_groups g
            WHERE g.consumer_group = $1 AND g.topic = $2 AND g.insert_token = $3
              AND NOT EXISTS (SELECT 1 FROM click_projection_ranges r
                               WHERE r.consumer_group = $1 AND r.topic = $2
                                 AND r.insert_token = $3 AND r.state = 'pending')`,
          [...key, token],
        );
        return true;
      });
    },
    async get(partition) {
      const { rows } = await pool.query<Row>(
        `SELECT first_offset, last_offset, state, insert_token FROM click_projection_ranges
          WHERE consumer_group = $1 AND topic = $2 AND kafka_partition = $3`,
        [...key, partition],
      );
      return rows[0] ? toRow(rows[0]) : null;
    },
  };
}
