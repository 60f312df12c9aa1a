import type { KafkaLogger } from './kafka/client';
import { InOrderCommits } from './in-order-commits';
import type { BatchControl, BatchHandler, LogRecord } from './log-client';

/**
 * A record taken in hand, for its handler to settle once: `handled()` when it
 * need never be handled again, or `release()` when the handler gives it up
 * (the consumer stopping): a record released is never committed, so the
 * partition's next owner reads it again. Later calls are ignored.
 */
export interface RecordInHand {
  handled(): void;
  release(): void;
}

/** How a record ended, for the consumer's metrics. */
export type HandledAs = 'ok' | 'drop' | 'dead_letter';

/**
 * Takes one record in hand: starts its work and returns, settling `inHand`
 * when the work ends (which may be at once). The record itself need not be
 * kept: what the handler keeps of it is all that a record waiting costs.
 */
export type HandleRecord = (
  record: LogRecord,
  topic: string,
  partition: number,
  inHand: RecordTicket,
  heartbeat: () => Promise<void>,
) => void;

/** How often a partition's handled records are committed, at most: one commit request for many records. */
const COMMIT_INTERVAL_MS = 200;
/** How often a batch waiting for room in hand tells the group it is alive. */
const ROOM_WAIT_HEARTBEAT_MS = 1000;

interface PartitionInHand {
  topic: string;
  partition: number;
  commits: InOrderCommits;
  /** The control of the partition's latest batch: commits go through it, while it is owned. */
  control: BatchControl;
  /** The offset this member reads next; a batch starting elsewhere was read anew from the commit. */
  expected: bigint;
  highWatermark?: string;
  committing: boolean;
  timer?: NodeJS.Timeout;
  /** Settles one of its records: see RecordTicket. */
  settle: (sequence: number, handled: HandledAs | null) => void;
}

/**
 * A record in hand as the consumer holds it: where it sits in its
 * partition's commits, and nothing else (a small object, no closure).
 */
export class RecordTicket implements RecordInHand {
  constructor(
    private readonly owner: PartitionInHand,
    private readonly sequence: number,
  ) {}

  /** Handled; `as` tells the consumer's metrics how (a record taken in hand and done later is `ok`). */
  handled(as: HandledAs = 'ok'): void {
    this.owner.settle(this.sequence, as);
  }

  release(): void {
    this.owner.settle(this.sequence, null);
  }
}

export interface RecordsInHandDeps {
  logger: KafkaLogger;
  stopping: () => boolean;
  /** Called after each commit: the partition's lag behind what is committed. */
  committed: (partition: { topic: string; partition: number }, highWatermark: string | undefined, next: bigint) => void;
  /** Called once for each record handled (not released), with how. */
  handled: (topic: string, as: HandledAs) => void;
}

/**
 * The batch handler of `runConsumer`'s `recordsInHand`: takes every record of
 * a batch in hand (waiting, and heartbeating, while `limit` are), advances the
 * read position past them and returns, so the next batch is read while they
 * are handled. Each partition is committed up to its first record not yet
 * handled, a few times a second.
 */
export function recordsInHandBatches(limit: number, handle: HandleRecord, deps: RecordsInHandDeps) {
  const partitions = new Map<string, PartitionInHand>();
  /** Records taken and not yet settled. */
  let inHand = 0;
  /** Batches waiting for room, and a stop waiting for the records in hand to settle. */
  const waitingForRoom = new Set<() => void>();
  const waitingForNone = new Set<() => void>();
  const wake = (waiting: Set<() => void>) => {
    for (const resolve of waiting) resolve();
    waiting.clear();
  };

  const commitNow = async (state: PartitionInHand): Promise<void> => {
    if (state.committing || !state.control.owned()) return;
    const next = state.commits.nextCommit();
    if (next === null) return;
    state.committing = true;
    try {
      await state.control.commit(next);
      deps.committed(state, state.highWatermark, BigInt(next));
    } catch (err) {
      // A member that lost the partition is refused, rightly: its next owner reads from the last commit.
      if (state.control.owned()) {
        deps.logger.warn({ err, topic: state.topic, partition: state.partition, next }, 'commit failed; retrying');
        state.commits.commitFailed();
      }
    } finally {
      state.committing = false;
    }
    // What was handled meanwhile, or a commit to try again.
    if (state.commits.hasNextCommit()) commitSoon(state);
  };
  const commitSoon = (state: PartitionInHand) => {
    state.timer ??= setTimeout(() => {
      state.timer = undefined;
      void commitNow(state);
    }, COMMIT_INTERVAL_MS);
  };

  const eachBatch: BatchHandler = async ({ topic, partition, records, highWatermark }, control) => {
    const first = records[0];
    if (!first || deps.stopping() || !control.owned()) return;
    const key = `${topic}/${partition}`;
    let state = partitions.get(key);
    if (!state || state.expected !== BigInt(first.offset)) {
      // New, or read again from its commit (a rebalance): records of the old state finish without committing.
      if (state) clearTimeout(state.timer);
      const created: PartitionInHand = {
        topic,
        partition,
        commits: new InOrderCommits(),
        control,
        expected: BigInt(first.offset),
        committing: false,
        settle: (sequence, handled) => {
          if (!created.commits.settle(sequence, handled !== null)) return;
          inHand--;
          if (handled !== null) {
            deps.handled(topic, handled);
            commitSoon(created);
          }
          if (waitingForRoom.size > 0) wake(waitingForRoom);
          if (inHand === 0) wake(waitingForNone);
        },
      };
      state = created;
      partitions.set(key, state);
    }
    const current = state;
    current.control = control;
    current.highWatermark = highWatermark;
    const heartbeat = () => current.control.heartbeat();
    for (const record of records) {
      while (inHand >= limit && !deps.stopping() && control.owned()) {
        await new Promise<void>((resolve) => {
          waitingForRoom.add(resolve);
          setTimeout(resolve, ROOM_WAIT_HEARTBEAT_MS);
        });
        await control.heartbeat();
      }
      if (deps.stopping() || !control.owned()) return;
      const sequence = current.commits.take(BigInt(record.offset));
      inHand++;
      current.expected = BigInt(record.offset) + 1n;
      control.advance(current.expected.toString());
      handle(record, topic, partition, new RecordTicket(current, sequence), heartbeat);
    }
  };

  return {
    eachBatch,
    /** For the consumer's stop: waits for the records in hand, then commits what they finished. */
    async drain(): Promise<void> {
      wake(waitingForRoom);
      while (inHand > 0) await new Promise<void>((resolve) => waitingForNone.add(resolve));
      await Promise.all(
        [...partitions.values()].map(async (state) => {
          clearTimeout(state.timer);
          state.timer = undefined;
          while (state.committing) await new Promise((r) => setTimeout(r, 10));
          await commitNow(state);
          clearTimeout(state.timer);
        }),
      );
    },
  };
}
