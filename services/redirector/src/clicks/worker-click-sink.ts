import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { KafkaLogger } from '@shortlink/event-log';
import { toClickColumns } from './click-columns';
import { ClickQueue, type SentBatch } from './click-queue';
import { MAX_CLICKS_PER_APPEND, CLICK_CAPACITY, CLICK_FLUSH_INTERVAL_MS, type ClickSink } from './click-sink';
import type { RawClick } from './raw-click';
import type { ClickWorkerData, FromClickWorker, ToClickWorker } from './worker-protocol';
import { CLICK_WORKER_YOUNG_GENERATION, workerWithYoungGeneration } from './worker-young-generation';

/** How long the worker is given to disconnect its producer once its queue is closed. */
const WORKER_STOP_MS = 2_000;

export interface WorkerClickSinkOptions extends ClickWorkerData {
  logger: KafkaLogger;
  capacity?: number;
  /**
   * The built worker entry, and arguments for it (its `process.argv`): a seam
   * for tests, which run the real worker behind one that injects a fault.
   */
  workerFile?: string;
  workerArgs?: string[];
}

/**
 * Clicks produced to Kafka by a worker thread (`click-worker.ts`). The redirect thread keeps the in-process sink's
 * bounded queue, of captured clicks: "sending" a batch hands it to the worker and resolves on Kafka's acknowledgement.
 * So a batch stays queued until acknowledged and a failed one is retried, through a new worker if need be; event ids
 * are fixed at capture, so a batch sent twice is the same events, which consumers deduplicate.
 */
/**
 * The worker's entry beside this file once built; from the sources (the
 * tests run them through ts-jest), the built one under dist/, since a worker
 * thread runs plain JavaScript.
 */
function builtWorkerFile(): string {
  const beside = join(__dirname, 'click-worker.js');
  return existsSync(beside) ? beside : join(__dirname, '..', '..', 'dist', 'clicks', 'click-worker.js');
}

export function workerClickSink(options: WorkerClickSinkOptions): ClickSink {
  const { logger } = options;
  const file = options.workerFile ?? builtWorkerFile();
  const workerData: ClickWorkerData = {
    brokers: options.brokers,
    clientId: options.clientId,
    topic: options.topic,
    visitorSecret: options.visitorSecret,
    eventIdPrefix: options.eventIdPrefix,
  };
  const inFlight = new Map<number, { resolve: (outcome: SentBatch) => void; reject: (err: Error) => void }>();
  let worker: Worker | undefined;
  let starting: Promise<Worker> | undefined;
  let started = false;
  let stopping = false;
  let restarts = 0;
  let nextBatch = 0;
  let onStopped: (() => void) | undefined;

  function spawn(): Promise<Worker> {
    const candidate = workerWithYoungGeneration(
      CLICK_WORKER_YOUNG_GENERATION,
      (resourceLimits) => new Worker(file, { workerData, argv: options.workerArgs ?? [], resourceLimits }),
    );
    let refused = false;
    return new Promise<Worker>((resolve, reject) => {
      candidate.on('message', (message: FromClickWorker) => {
        switch (message.type) {
          case 'ready':
            worker = candidate;
            return resolve(candidate);
          case 'start-failed':
            refused = true;
            void candidate.terminate();
            return reject(new Error(`click worker could not connect to Kafka: ${message.message}`));
          case 'sent':
            inFlight.get(message.batch)?.resolve({
              rejected: message.rejected,
              rejection: message.rejection === undefined ? undefined : new Error(message.rejection),
            });
            inFlight.delete(message.batch);
            return;
          case 'send-failed':
            inFlight.get(message.batch)?.reject(new Error(message.message));
            inFlight.delete(message.batch);
            return;
          case 'stopped':
            return onStopped?.();
          case 'log':
            return logger[message.level]({ ...message.fields, component: 'click-worker' }, message.msg);
        }
      });
      candidate.on('error', (err) => logger.error({ err }, 'click worker failed'));
      candidate.on('exit', (code) => {
        if (worker === candidate) worker = undefined;
        reject(new Error(`click worker exited with code ${code} before it was ready`));
        // Whether Kafka has these is unknown: the queue sends them again, as the same events.
        for (const pending of inFlight.values()) pending.reject(new Error(`click worker exited with code ${code}`));
        inFlight.clear();
        onStopped?.();
        if (!stopping && !refused && started) logger.error({ code }, 'click worker exited; a new one takes over');
      });
    });
  }

  function currentWorker(): Promise<Worker> {
    if (worker) return Promise.resolve(worker);
    if (!starting) {
      if (started) restarts++;
      starting = spawn().finally(() => (starting = undefined));
    }
    return starting;
  }

  const queue = new ClickQueue<RawClick>({
    capacity: options.capacity ?? CLICK_CAPACITY,
    maxBatch: MAX_CLICKS_PER_APPEND,
    flushIntervalMs: CLICK_FLUSH_INTERVAL_MS,
    logger,
    // Events are built in the worker.
    send: async (clicks) => {
      const target = await currentWorker();
      const batch = nextBatch++;
      return new Promise<SentBatch>((resolve, reject) => {
        inFlight.set(batch, { resolve, reject });
        target.postMessage({ type: 'clicks', batch, clicks: toClickColumns(clicks) } satisfies ToClickWorker);
      });
    },
  });

  return {
    push: (click) => queue.push(click),
    get depth() {
      return queue.depth;
    },
    stats: queue.stats,
    get workerRestarts() {
      return restarts;
    },
    flush: () => queue.flush(),
    async start() {
      await currentWorker();
      started = true;
    },
    async stop(timeoutMs) {
      await queue.close(timeoutMs);
      stopping = true;
      const last = worker;
      if (!last) return;
      // Let the worker disconnect its producer; a little time, then it ends regardless.
      const stopped = new Promise<void>((resolve) => (onStopped = resolve));
      last.postMessage({ type: 'stop' } satisfies ToClickWorker);
      await Promise.race([stopped, new Promise((r) => setTimeout(r, WORKER_STOP_MS).unref())]);
      await last.terminate();
    },
  };
}
