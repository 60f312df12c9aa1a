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
  /** Most clicks in one group; a batch larger than this goes alone. */
  maxClicks: number;
  /** Called once for each insert sent, with the number of batches it carried. */
  onInsert?: (batches: number) => void;
}

interface Waiting {
  batch: ReadyBatch;
  resolve: (outcome: GroupOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * The click projector's inserts as a group commit: a partition's batch that
 * arrives while an insert is under way waits for it, and every batch that
 * waited goes in the next insert, together. ClickHouse's cost is per insert
 * (a part in `clicks` and in each aggregate table, its views' pipelines), not
 * per click, so under load one insert carries the batches of every partition
 * this member holds, and with little traffic a lone batch goes at once.
 *
 * Exactly once, for a group as for a batch: the group's rows are chosen (the
 * clicks not yet counted), then bound in the ledger with the batches still
 * pending, in one transaction (`BatchLedger.bind`), and only then sent, under
 * a token naming the batches bound. Whoever finds one of them pending later
 * sends the rows the ledger kept, under that token (`Claim` `resend`). A
 * batch whose group fails in its ClickHouse step is retried with it; one that
 * could not be bound is handed back, and the others go on without it.
 */
export function clickInsertGroups(deps: ClickInsertGroupsDeps) {
  let waiting: Waiting[] = [];
  let sending = false;

  /** The next group: a batch that goes alone, or the batches that fit under `maxClicks` (at least one). */
  function takeGroup(): Waiting[] {
    const first = waiting[0];
    if (!first || first.batch.alone) return waiting.splice(0, 1);
    const group: Waiting[] = [];
    const left: Waiting[] = [];
    let clicks = 0;
    for (const w of waiting) {
      const fits = !w.batch.alone && (group.length === 0 || clicks + w.batch.rows.length <= deps.maxClicks);
      if (fits) {
        group.push(w);
        clicks += w.batch.rows.length;
      } else left.push(w);
    }
    waiting = left;
    return group;
  }

  async function sendGroup(group: Waiting[]): Promise<void> {
    const batches = group.map((w) => w.batch);
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
    // Exactly the rows bind kept: read back in the same order they were made in.
    const rows = uncounted.filter((row) => boundPartitions.has(row.source_partition));
    if (boundPartitions.size > 0) {
      await deps.retry(() => deps.insert(rows, token), owned, heartbeat);
      deps.onInsert?.(boundPartitions.size);
    }
    for (const w of group) {
      if (!boundPartitions.has(w.batch.partition)) w.resolve({ bound: false });
      else {
        const inserted = rows.reduce((n, row) => n + (row.source_partition === w.batch.partition ? 1 : 0), 0);
        w.resolve({ bound: true, token, inserted });
      }
    }
  }

  async function drain(): Promise<void> {
    sending = true;
    try {
      while (waiting.length > 0) {
        const group = takeGroup();
        try {
          await sendGroup(group);
        } catch (error) {
          for (const w of group) w.reject(error);
        }
      }
    } finally {
      sending = false;
    }
  }

  return {
    /** Sends a partition's batch in the next insert. */
    send(batch: ReadyBatch): Promise<GroupOutcome> {
      return new Promise<GroupOutcome>((resolve, reject) => {
        waiting.push({ batch, resolve, reject });
        // Batches handed over in the same turn of the event loop (one fetch's partitions) start together.
        if (!sending) {
          sending = true;
          setImmediate(() => void drain());
        }
      });
    },
  };
}
