import { randomUUID } from 'node:crypto';
import { createKafka, ensureTopics, kafkaLogClient } from '@shortlink/event-log';
import { infraEnv, uniqueSuffix } from '@shortlink/testing';
import { eventLogContract } from './contract/event-log-contract';

describe('the event-log interface on Kafka (kafkajs adapter, real broker)', () => {
  const client = kafkaLogClient(
    createKafka({ brokers: infraEnv(process.env).KAFKA_BROKERS.split(','), clientId: 'event-log-contract' }),
  );
  const prefix = `test-eventlog-${uniqueSuffix()}`;
  eventLogContract(
    async () => ({
      client,
      async newTopic(partitions) {
        const topic = `${prefix}.${randomUUID()}`;
        await ensureTopics(client, [{ topic, numPartitions: partitions, configEntries: [] }]);
        return topic;
      },
      newGroup: () => `${prefix}.group.${randomUUID()}`,
    }),
    async () => undefined,
  );
});
