/**
 * A worker thread's entry: the click projection of `npm start`'s embedded
 * mode, composed by the projector's own compose function (as the fleet's
 * click projector processes are), on the main thread's event log, Postgres
 * and ClickHouse. Its work (decoding clicks, building rows, encoding them for
 * ClickHouse) then runs beside the event loop that answers redirects instead
 * of on it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openClickHouse } from '@shortlink/clickhouse';
import { createLogger } from '@shortlink/http';
import { threadLogClient } from '@shortlink/event-log';
import { createMetricsRegistry } from '@shortlink/metrics';
import { openServiceDatabase } from '@shortlink/postgres';
import { composeProjector } from '@shortlink/service-projector';
import type {
  ClickProjectorThreadData,
  FromClickProjectorThread,
  ToClickProjectorThread,
} from './click-projector-thread-messages';

const port = parentPort;
if (!port) throw new Error('click-projector-thread.js runs as a worker thread');
const { settings, names, logPort } = workerData as ClickProjectorThreadData;
const post = (message: FromClickProjectorThread) => port.postMessage(message);

async function start() {
  const logger = createLogger('shortlink', settings.LOG_LEVEL, settings.LOG_FORMAT);
  // The process's own metrics (memory, event loop, GC) are the main thread's to report.
  const metrics = createMetricsRegistry({ processMetrics: false });
  const pool = await openServiceDatabase(settings, 'shortlink-click-projector');
  const clickhouse = await openClickHouse(settings, 'shortlink-click-projector');
  const projector = composeProjector(
    { ...settings, PROJECTIONS: ['clicks'] },
    { kafka: threadLogClient(logPort), names, pool, clickhouse, logger, metrics },
  );
  await projector.start?.();
  return {
    metrics,
    dependencies: projector.dependencies ?? [],
    async stop() {
      await projector.stop?.();
      await clickhouse.close();
      await pool.end();
      logPort.close();
    },
  };
}

start().then(
  (running) => {
    port.on('message', (message: ToClickProjectorThread) => {
      switch (message.type) {
        case 'metrics':
          void running.metrics
            .getMetricsAsJSON()
            .then((snapshot) => post({ type: 'metrics', id: message.id, snapshot }));
          return;
        case 'check': {
          const dependency = running.dependencies.find((d) => d.name === message.dependency);
          (dependency?.check() ?? Promise.reject(new Error(`no dependency ${message.dependency}`))).then(
            () => post({ type: 'check', id: message.id }),
            (e: Error) => post({ type: 'check', id: message.id, error: e.message }),
          );
          return;
        }
        case 'stop':
          void running.stop().finally(() => post({ type: 'stopped' }));
          return;
      }
    });
    post({ type: 'started', dependencies: running.dependencies.map((d) => d.name) });
  },
  (e: Error) => post({ type: 'start-failed', message: e.message }),
);
