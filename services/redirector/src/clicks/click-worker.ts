import { parentPort, workerData } from 'node:worker_threads';
import { createKafka, kafkaLogClient, type KafkaLogger } from '@shortlink/event-log';
import { addressFacts } from './address-facts';
import { clickEventLines } from './click-event';
import { adminPartitionCount, clickRecordsAppender } from './click-records-appender';
import { loadCountryLookup } from './country';
import {
  cloneableFields,
  type ClickWorkerData,
  type FromClickWorker,
  type ToClickWorker,
  type WorkerLogLevel,
} from './worker-protocol';

/**
 * The click worker thread: turns batches of captured clicks into ClickRecorded
 * events and produces them to Kafka, so that hashing, JSON and kafkajs's record
 * encoding run beside the redirect loop instead of inside it. It holds nothing:
 * the main thread's queue keeps each batch until this thread reports it
 * acknowledged, and sends it again (the same events) if it is not.
 */
const port = parentPort;
if (!port) throw new Error('click-worker runs as a worker thread');
const data = workerData as ClickWorkerData;
const post = (message: FromClickWorker) => port.postMessage(message);
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

const log =
  (level: WorkerLogLevel) =>
  (obj: object, msg: string): void => {
    try {
      post({ type: 'log', level, fields: cloneableFields(obj), msg });
    } catch {
      post({ type: 'log', level, fields: {}, msg });
    }
  };
const logger: KafkaLogger = { error: log('error'), warn: log('warn'), info: log('info'), debug: () => undefined };

const eventLog = kafkaLogClient(createKafka({ brokers: data.brokers, clientId: data.clientId, logger }));
const producer = eventLog.producer();
const admin = eventLog.admin();
const send = clickRecordsAppender({
  producer,
  topic: data.topic,
  partitionCount: adminPartitionCount(admin, data.topic),
});
const factsOf = addressFacts({ visitorSecret: data.visitorSecret, countryOf: loadCountryLookup() });
const building = { factsOf, eventIdPrefix: data.eventIdPrefix };

port.on('message', (message: ToClickWorker) => {
  if (message.type === 'stop') {
    void Promise.all([producer.disconnect(), admin.disconnect()])
      .catch(() => undefined)
      .then(() => post({ type: 'stopped' }));
    return;
  }
  const { batch, clicks } = message;
  const lines = clickEventLines(clicks, building);
  const rejection = lines.rejected === 0 ? {} : { rejection: messageOf(lines.rejection) };
  send(lines).then(
    () => post({ type: 'sent', batch, rejected: lines.rejected, ...rejection }),
    (err: unknown) => post({ type: 'send-failed', batch, message: messageOf(err) }),
  );
});

producer.connect().then(
  () => post({ type: 'ready' }),
  (err: unknown) => post({ type: 'start-failed', message: messageOf(err) }),
);
