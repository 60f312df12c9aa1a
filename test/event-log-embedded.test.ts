import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import {
  EventLog,
  embeddedLogClient,
  ensureTopics,
  serveLogClient,
  threadLogClient,
  type EventLogClient,
} from '@shortlink/event-log';
import { eventLogContract } from './contract/event-log-contract';

/**
 * The embedded log, reached directly and across a MessageChannel (as a module
 * on a worker thread reaches it: every message crosses by structured clone).
 */
const reaches: Record<string, (log: EventLog) => { client: EventLogClient; close: () => Promise<void> }> = {
  directly: (log) => ({ client: embeddedLogClient(log), close: async () => undefined }),
  'from another thread': (log) => {
    const channel = new MessageChannel();
    const stopServing = serveLogClient(embeddedLogClient(log), channel.port1);
    return {
      client: threadLogClient(channel.port2),
      async close() {
        await stopServing();
        channel.port2.close();
      },
    };
  },
};

describe.each(Object.keys(reaches))('the event-log interface on the embedded log, %s', (reach) => {
  let dir: string;
  let log: EventLog;
  let close: () => Promise<void>;
  eventLogContract(
    async () => {
      dir = await mkdtemp(join(tmpdir(), 'event-log-contract-'));
      log = await EventLog.open(dir);
      const reached = reaches[reach]!(log);
      close = reached.close;
      const { client } = reached;
      return {
        client,
        async newTopic(partitions) {
          const topic = `t.${randomUUID()}`;
          await ensureTopics(client, [{ topic, numPartitions: partitions, configEntries: [] }]);
          return topic;
        },
        newGroup: () => `g.${randomUUID()}`,
      };
    },
    async () => {
      await close();
      await log.close();
      await rm(dir, { recursive: true, force: true });
    },
  );
});
