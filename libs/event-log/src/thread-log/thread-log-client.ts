import type { MessagePort } from 'node:worker_threads';
import type { BatchHandler, EventLogClient, LogAdmin, LogProducer, RunningLogConsumer } from '../log-client';
import {
  fromWireError,
  toWireError,
  withBuffers,
  type AdminArgs,
  type AdminMethod,
  type ClientToHost,
  type HostCall,
  type HostToClient,
} from './thread-log-messages';

/**
 * The event log of another thread of this process, served there by
 * `serveLogClient`: for a module that runs on a worker thread while the log
 * (the embedded one, which lives in one thread) stays where it is. Appends,
 * commits and admin calls are round trips to the host thread; each batch the
 * host's consumer fetches is handled here.
 */
export function threadLogClient(port: MessagePort): EventLogClient {
  const calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const handlers = new Map<number, BatchHandler>();
  let nextId = 0;
  const post = (message: ClientToHost) => port.postMessage(message);

  function call<T>(request: HostCall): Promise<T> {
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      calls.set(id, { resolve: resolve as (value: unknown) => void, reject });
      post({ kind: 'call', id, call: request });
    });
  }

  port.on('message', (message: HostToClient) => {
    if (message.kind === 'result') {
      const pending = calls.get(message.id);
      calls.delete(message.id);
      if (message.ok) pending?.resolve(message.value);
      else pending?.reject(fromWireError(message.error));
      return;
    }
    const { batchId, batch, consumerId } = message;
    const ref = { consumerId, topic: batch.topic, partition: batch.partition };
    const handler = handlers.get(consumerId);
    let owned = true;
    const handled = handler
      ? handler(
          { ...batch, records: batch.records.map(withBuffers) },
          {
            commit: (offset) => call<void>({ op: 'commit', offset, ...ref }),
            advance: (offset) => post({ kind: 'advance', offset, ...ref }),
            heartbeat: async () => {
              owned = await call<boolean>({ op: 'heartbeat', ...ref });
            },
            owned: () => owned,
          },
        )
      : Promise.reject(new Error(`no consumer ${consumerId} on this thread`));
    handled.then(
      () => post({ kind: 'batch-done', batchId }),
      (error: unknown) => post({ kind: 'batch-done', batchId, error: toWireError(error) }),
    );
  });

  return {
    producer(): LogProducer {
      const producerId = nextId++;
      return {
        connect: () => call({ op: 'producer-connect', producerId }),
        disconnect: () => call({ op: 'producer-disconnect', producerId }),
        append: (topic, records, options) =>
          call({ op: 'append', producerId, topic, records: [...records], options: options ?? {} }),
      };
    },
    async consume(subscription, eachBatch): Promise<RunningLogConsumer> {
      const consumerId = nextId++;
      handlers.set(consumerId, eachBatch);
      await call({ op: 'consume', consumerId, subscription });
      return {
        async stop() {
          await call({ op: 'stop-consumer', consumerId });
          handlers.delete(consumerId);
        },
      };
    },
    admin(): LogAdmin {
      const adminId = nextId++;
      const ask = <T>(method: AdminMethod, ...args: AdminArgs) => call<T>({ op: 'admin', adminId, method, args });
      return {
        connect: () => ask('connect'),
        disconnect: () => ask('disconnect'),
        createMissingTopics: (specs, replicationFactor) => ask('createMissingTopics', specs, replicationFactor),
        partitionOffsets: (topic) => ask('partitionOffsets', topic),
        committedOffsets: (groupId, topic) => ask('committedOffsets', groupId, topic),
        groupIsActive: (groupId) => ask('groupIsActive', groupId),
        deleteGroup: (groupId) => ask('deleteGroup', groupId),
      };
    },
  };
}
