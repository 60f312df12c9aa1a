import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog, embeddedLogClient } from '@shortlink/embedded';
import { ensureTopics } from '@shortlink/kafka';
import { eventLogContract } from './contract/event-log-contract';

describe('the event-log interface on the embedded log', () => {
  let dir: string;
  let log: EventLog;
  eventLogContract(
    async () => {
      dir = await mkdtemp(join(tmpdir(), 'event-log-contract-'));
      log = await EventLog.open(dir);
      const client = embeddedLogClient(log);
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
      await log.close();
      await rm(dir, { recursive: true, force: true });
    },
  );
});
