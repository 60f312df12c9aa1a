import type { KafkaLogger } from '@shortlink/event-log';
import type { Queryable } from './delivery-queue';
import { claimReplay, finishReplay, releaseReplay, renewReplayLease, type ClaimedReplay } from './replay-runs';

export interface ReplayRunnerDeps {
  db: Queryable;
  /** Reads the log for one replay and queues its messages (read-replay.ts); rejects when `signal` aborts. */
  read: (replay: ClaimedReplay, signal: AbortSignal) => Promise<number>;
  /** How often unfinished replays are looked for. */
  pollMs: number;
  /** How long a claimed replay is kept from other dispatchers without news of its runner (renewed each third). */
  leaseMs: number;
  logger: KafkaLogger;
}

export interface ReplayRunner {
  start(): void;
  /** Stops the replay under way (its lease released: another dispatcher takes it) and looks for no more. */
  stop(): Promise<void>;
}

/** Thrown into a run whose replay row is gone: its webhook was deleted. */
class ReplayGone extends Error {}

/**
 * Runs the replays asked through the API, one at a time per process: claims
 * the oldest unfinished one under a lease (two dispatchers never run one
 * replay together), reads it, and marks it finished. A run that fails
 * releases its replay, which any dispatcher's next poll starts again.
 */
export function createReplayRunner(deps: ReplayRunnerDeps): ReplayRunner {
  let stopping = false;
  let loop: Promise<void> | undefined;
  let current: AbortController | undefined;
  let wakeSleep: (() => void) | undefined;

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeSleep = undefined;
        resolve();
      }
      wakeSleep = done;
    });
  }

  async function runOne(replay: ClaimedReplay): Promise<void> {
    const abort = new AbortController();
    current = abort;
    const renewal = setInterval(() => {
      renewReplayLease(deps.db, replay.replayId, deps.leaseMs).then(
        (held) => held || abort.abort(new ReplayGone('the replay is gone')),
        (err: unknown) => deps.logger.warn({ err, replayId: replay.replayId }, 'renewing a replay lease failed'),
      );
    }, deps.leaseMs / 3);
    const { replayId, webhookId } = replay;
    try {
      const queued = await deps.read(replay, abort.signal);
      await finishReplay(deps.db, replayId);
      deps.logger.info({ replayId, webhookId, queued }, 'webhook replay queued');
    } catch (err) {
      if (err instanceof ReplayGone) {
        deps.logger.info({ replayId, webhookId }, 'webhook replay dropped: its webhook was deleted');
        return;
      }
      if (!stopping) deps.logger.warn({ err, replayId, webhookId }, 'webhook replay failed; it will run again');
      await releaseReplay(deps.db, replayId).catch(() => undefined);
      if (!stopping) await sleep(deps.pollMs);
    } finally {
      clearInterval(renewal);
      current = undefined;
    }
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!stopping) {
      let replay: ClaimedReplay | null;
      try {
        replay = await claimReplay(deps.db, deps.leaseMs);
        failures = 0;
      } catch (err) {
        failures++;
        deps.logger.warn({ err, failures }, 'looking for webhook replays failed; retrying');
        await sleep(Math.min(deps.pollMs * 2 ** failures, 60_000));
        continue;
      }
      if (replay && stopping) await releaseReplay(deps.db, replay.replayId).catch(() => undefined);
      else if (replay) await runOne(replay);
      else await sleep(deps.pollMs);
    }
  }

  return {
    start() {
      loop ??= run();
    },
    async stop() {
      stopping = true;
      current?.abort(new Error('the dispatcher is stopping'));
      wakeSleep?.();
      await loop;
    },
  };
}
