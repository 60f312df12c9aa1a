import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { Dependency, ServiceModule } from '@shortlink/http';
import { serveLogClient } from '@shortlink/event-log';
import type { MetricsSnapshot } from '@shortlink/metrics';
import type {
  ClickProjectorThreadData,
  FromClickProjectorThread,
  ToClickProjectorThread,
} from './click-projector-thread-messages';
import type { SystemSettings, SystemStores } from './system-config';

/** What the click projection needs (its module's dependencies, as the projector declares them). */
const DEPENDENCIES = ['kafka', 'postgres', 'clickhouse'];
const RESTART_AFTER_MS = 1000;

/** The worker's entry beside this file once built; from the sources (ts-jest), the built one under dist/. */
function builtThreadFile(): string {
  const beside = join(__dirname, 'click-projector-thread.js');
  return existsSync(beside) ? beside : join(__dirname, '..', 'dist', 'click-projector-thread.js');
}

interface RunningThread {
  worker: Worker;
  ask<T extends FromClickProjectorThread>(message: ToClickProjectorThread & { id: number }): Promise<T>;
  stopServing: () => Promise<void>;
}

/**
 * The click projection on a worker thread of this process, for the embedded
 * mode, where the event log lives in this process: the log is served to the
 * thread over a MessagePort, the thread's metrics join `/metrics`, and
 * `/readyz` asks the thread about the projection's dependencies. A thread
 * that dies is started again; the projection resumes from its committed
 * position, counting each click once as after any restart.
 */
export function clickProjectorOnThread(settings: SystemSettings, stores: SystemStores): ServiceModule {
  let running: RunningThread | undefined;
  let stopping = false;
  let removeMetrics = () => undefined as unknown;
  let nextId = 0;

  function spawn(): Promise<RunningThread> {
    const channel = new MessageChannel();
    const stopServing = serveLogClient(stores.kafka, channel.port1);
    const data: ClickProjectorThreadData = { settings, names: stores.names, logPort: channel.port2 };
    const worker = new Worker(builtThreadFile(), { workerData: data, transferList: [channel.port2] });
    const answers = new Map<number, (message: FromClickProjectorThread) => void>();
    let started = false;
    return new Promise<RunningThread>((resolve, reject) => {
      worker.on('message', (message: FromClickProjectorThread) => {
        switch (message.type) {
          case 'started':
            started = true;
            return resolve({
              worker,
              stopServing,
              ask: <T extends FromClickProjectorThread>(request: ToClickProjectorThread & { id: number }) =>
                new Promise<T>((answer) => {
                  answers.set(request.id, answer as (message: FromClickProjectorThread) => void);
                  worker.postMessage(request);
                }),
            });
          case 'start-failed':
            void worker.terminate();
            return reject(new Error(`the click projector's thread could not start: ${message.message}`));
          case 'metrics':
          case 'check':
            answers.get(message.id)?.(message);
            answers.delete(message.id);
            return;
          case 'stopped':
            return;
        }
      });
      worker.on('error', (err) => stores.logger.error({ err }, "the click projector's thread failed"));
      worker.on('exit', (code) => {
        void stopServing();
        if (!started) return reject(new Error(`the click projector's thread exited (code ${code}) before it started`));
        if (stopping || running?.worker !== worker) return;
        running = undefined;
        stores.logger.error({ code }, "the click projector's thread exited; starting it again");
        setTimeout(() => void restart(), RESTART_AFTER_MS).unref();
      });
    });
  }

  async function restart(): Promise<void> {
    if (stopping) return;
    try {
      running = await spawn();
    } catch (err) {
      stores.logger.error({ err }, "the click projector's thread could not start again; trying later");
      setTimeout(() => void restart(), RESTART_AFTER_MS).unref();
    }
  }

  const dependencies: Dependency[] = DEPENDENCIES.map((name) => ({
    name,
    async check() {
      if (!running) throw new Error("the click projector's thread is not running");
      const answer = await running.ask<Extract<FromClickProjectorThread, { type: 'check' }>>({
        type: 'check',
        id: nextId++,
        dependency: name,
      });
      if (answer.error !== undefined) throw new Error(answer.error);
    },
  }));

  return {
    name: 'click-projector',
    dependencies,
    async start() {
      running = await spawn();
      removeMetrics = stores.metrics.addThread(async (): Promise<MetricsSnapshot> => {
        if (!running) return [];
        const answer = await running.ask<Extract<FromClickProjectorThread, { type: 'metrics' }>>({
          type: 'metrics',
          id: nextId++,
        });
        return answer.snapshot;
      });
    },
    async stop() {
      stopping = true;
      removeMetrics();
      const thread = running;
      running = undefined;
      if (!thread) return;
      await new Promise<void>((resolve) => {
        thread.worker.once('exit', () => resolve());
        thread.worker.on('message', (message: FromClickProjectorThread) => {
          if (message.type === 'stopped') void thread.worker.terminate();
        });
        thread.worker.postMessage({ type: 'stop' } satisfies ToClickProjectorThread);
      });
      await thread.stopServing();
    },
  };
}
