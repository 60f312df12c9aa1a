import type { MessagePort } from 'node:worker_threads';
import type { BatchControl, EventLogClient, LogAdmin, LogProducer, RunningLogConsumer } from '../log-client';
import type { TopicSpec } from '../topics';
import {
  fromWireError,
  toWireError,
  withBuffers,
  type ClientToHost,
  type HostCall,
  type HostToClient,
  type PartitionRef,
} from './thread-log-messages';

const partitionKey = ({ consumerId, topic, partition }: PartitionRef) => `${consumerId}/${topic}/${partition}`;

/**
 * Serves `client` to another thread of this process, which reaches it through
 * `threadLogClient` on the other end of `port`: its appends, consumers and
 * admin calls run here, on the log this thread owns, and each fetched batch
 * goes to that thread's handler, which commits through here. Returns a
 * function that stops what the other thread left running.
 */
export function serveLogClient(client: EventLogClient, port: MessagePort): () => Promise<void> {
  const producers = new Map<number, LogProducer>();
  const consumers = new Map<number, RunningLogConsumer>();
  const admins = new Map<number, LogAdmin>();
  /** Batches handed to the other thread, waiting for its handler to end. */
  const batches = new Map<number, (error?: Error) => void>();
  /** The latest batch's control of each partition the other thread consumes. */
  const controls = new Map<string, BatchControl>();
  let nextBatch = 0;
  const post = (message: HostToClient) => port.postMessage(message);

  const producer = (id: number) => {
    let p = producers.get(id);
    if (!p) producers.set(id, (p = client.producer()));
    return p;
  };
  const admin = (id: number) => {
    let a = admins.get(id);
    if (!a) admins.set(id, (a = client.admin()));
    return a;
  };
  const control = (ref: PartitionRef) => {
    const c = controls.get(partitionKey(ref));
    if (!c) throw new Error(`no batch of ${partitionKey(ref)} was handed over`);
    return c;
  };

  async function run(call: HostCall): Promise<unknown> {
    switch (call.op) {
      case 'producer-connect':
        return producer(call.producerId).connect();
      case 'producer-disconnect':
        await producers.get(call.producerId)?.disconnect();
        producers.delete(call.producerId);
        return;
      case 'append':
        return producer(call.producerId).append(call.topic, call.records.map(withBuffers), call.options);
      case 'consume': {
        const { consumerId } = call;
        const running = await client.consume(call.subscription, (recordBatch, batchControl) => {
          const batchId = nextBatch++;
          controls.set(partitionKey({ consumerId, ...recordBatch }), batchControl);
          return new Promise<void>((resolve, reject) => {
            batches.set(batchId, (error) => {
              batches.delete(batchId);
              if (error) reject(error);
              else resolve();
            });
            post({ kind: 'batch', consumerId, batchId, batch: recordBatch });
          });
        });
        consumers.set(consumerId, running);
        return;
      }
      case 'stop-consumer':
        await consumers.get(call.consumerId)?.stop();
        consumers.delete(call.consumerId);
        for (const key of [...controls.keys()]) if (key.startsWith(`${call.consumerId}/`)) controls.delete(key);
        return;
      case 'commit':
        return control(call).commit(call.offset);
      case 'heartbeat': {
        const c = control(call);
        await c.heartbeat();
        return c.owned();
      }
      case 'admin': {
        const a = admin(call.adminId);
        const [first, second] = call.args;
        switch (call.method) {
          case 'connect':
            return a.connect();
          case 'disconnect':
            await a.disconnect();
            admins.delete(call.adminId);
            return;
          case 'createMissingTopics':
            return a.createMissingTopics(first as readonly TopicSpec[], second as number | undefined);
          case 'partitionOffsets':
            return a.partitionOffsets(first as string);
          case 'committedOffsets':
            return a.committedOffsets(first as string, second as string);
          case 'groupIsActive':
            return a.groupIsActive(first as string);
          case 'deleteGroup':
            return a.deleteGroup(first as string);
        }
      }
    }
  }

  port.on('message', (message: ClientToHost) => {
    switch (message.kind) {
      case 'call':
        run(message.call).then(
          (value) => post({ kind: 'result', id: message.id, ok: true, value }),
          (error: unknown) => post({ kind: 'result', id: message.id, ok: false, error: toWireError(error) }),
        );
        return;
      case 'batch-done':
        batches.get(message.batchId)?.(message.error && fromWireError(message.error));
        return;
      case 'advance':
        controls.get(partitionKey(message))?.advance(message.offset);
        return;
    }
  });

  let closing: Promise<void> | undefined;
  return () => (closing ??= close());

  async function close(): Promise<void> {
    // Batches still in hand end as failed, so their consumers stop without waiting on a thread that left.
    for (const done of [...batches.values()]) done(new Error('the consuming thread stopped'));
    await Promise.all([...consumers.values()].map((c) => c.stop().catch(() => undefined)));
    await Promise.all([...producers.values()].map((p) => p.disconnect().catch(() => undefined)));
    await Promise.all([...admins.values()].map((a) => a.disconnect().catch(() => undefined)));
    consumers.clear();
    controls.clear();
    producers.clear();
    admins.clear();
    port.close();
  }
}
