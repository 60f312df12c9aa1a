import { groupCommit } from '@shortlink/batching';
import type { BatchLedger, PartitionBatch } from './batch-ledger';
import type { ClickRow } from './click-rows';
import { deduplicationToken } from './deduplicated-insert';

/** A partition's claimed batch, ready to be sent: its rows, parsed and checked. */
export interface ReadyBatch extends PartitionBatch {
  rows: ClickRow[];
  /** Sent in a group of its own (a batch re-formed from another owner's claim: see `Claim`). */
  alone: boolean;
  /** Whether this member still owns the batch's partition. */
  owned: () => boolean;
  /** Tells the group this member is alive during long work. */
  heartbeat: () => Promise<void>;
}

export type GroupOutcome =
  /** Bound to an insert that went in: settle the batch under `token`. `inserted`: its clicks not counted before. */
  | { bound: true; token: string; inserted: number }
  /** Moved on or bound by another owner meanwhile: claim it again. */
  | { bound: false };

export interface ClickInsertGroupsDeps {
  topic: string;
  ledger: BatchLedger;
  /** The rows not yet counted (`already-counted.ts`), for one lookup for every batch of the group. */
  withoutCounted: (rows: ClickRow[], batches: readonly PartitionBatch[]) => Promise<ClickRow[]>;
  /** The deduplicated insert (`deduplicated-insert.ts`). */
  insert: (rows: ClickRow[], token: string) => Promise<void>;
  /**
   * Runs a ClickHouse step until it succeeds, waiting between attempts, while
   * `owned()` holds; throws its last error once it does not.
   */
  retry: <T>(step: () => Promise<T>, owned: () => boolean, heartbeat: () => Promise<void>) => Promise<T>;
  /** Most clicks in one insert; a batch larger than this goes in one of its own. */
  maxClicks: number;
  /** Called once for each insert sent, with the number of batches it carried. */
  onInsert?: (batches: number) => void;
}

/**
 * The click projector's inserts as a group commit: the partitions' batches that arrive while an insert is under way go
 * together in the next one, since ClickHouse's cost is per insert (a part per table and view), not per click. Exactly
 * once, as for a batch: the group's uncounted rows are bound in the ledger with its pending batches in one transaction,
 * then sent under a token naming them; a later owner resends the bound rows under that token. A failed group is
 * retried whole; a batch that could not be bound is handed back (docs/decisions/0006-click-ledger-in-postgres.md).
 */
export function clickInsertGroups(deps: ClickInsertGroupsDeps) {
  async function sendGroup(batches: ReadyBatch[]): Promise<GroupOutcome[]> {
    const owned = () => batches.some((b) => b.owned());
    const heartbeat = async () => {
      for (const b of batches) if (b.owned()) await b.heartbeat();
    };
    const all = batches.flatMap((b) => b.rows);
    const uncounted = await deps.retry(() => deps.withoutCounted(all, batches), owned, heartbeat);
    const token = deduplicationToken(deps.topic, batches);
    const boundPartitions = new Set(
      await deps.ledger.bind(token, batches, (bound) => {
        const keep = new Set(bound.map((b) => b.partition));
        return uncounted.filter((row) => keep.has(row.source_partition));
      }),
    );
    // Exactly the rows bind kept, in the order they were made in.
    const rows = uncounted.filter((row) => boundPartitions.has(row.source_partition));
    if (boundPartitions.size > 0) {
      await deps.retry(() => deps.insert(rows, token), owned, heartbeat);
      deps.onInsert?.(boundPartitions.size);
    }
    return batches.map((b) =>
      boundPartitions.has(b.partition)
        ? { bound: true, token, inserted: rows.filter((row) => row.source_partition === b.partition).length }
        : { bound: false },
    );
  }

  // A failed group may have gone in part of the way (`clicks` before its views): every batch of it fails.
  const shared = groupCommit(sendGroup, {
    maxBatch: deps.maxClicks,
    sizeOf: (batch) => batch.rows.length,
    onFailure: 'fail-all',
    // The partitions of one fetch, handed over in one turn, start together.
    gatherTurn: true,
  });

  return {
    /** Sends a partition's batch in the next insert; a batch that must go alone, in one of its own. */
    async send(batch: ReadyBatch): Promise<GroupOutcome> {
      if (!batch.alone) return shared(batch);
      const [outcome] = await sendGroup([batch]);
      return outcome as GroupOutcome;
    },
  };
}
