import { infraEnv, uniqueSuffix } from '@shortlink/testing';
import { ensureTopics } from './admin';
import { createKafka } from './client';
import { kafkaLogClient } from './kafkajs-log-client';

const env = infraEnv(process.env);

/**
 * A producer and an admin connected to the real broker, then left alone, as
 * the click worker and the write service are between bursts: kafkajs 2.2.4
 * unpatched fires a timer every millisecond on each of their connections
 * (kafkajs#1556; patches/kafkajs+2.2.4.patch).
 */
describe('idle Kafka clients (real broker)', () => {
  it('schedule (almost) no timers while idle', async () => {
    const client = kafkaLogClient(createKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'idle-int-test' }));
    const topic = `test.idle.${uniqueSuffix()}`;
    await ensureTopics(client, [{ topic, numPartitions: 2, configEntries: [] }]);
    const producer = client.producer();
    const admin = client.admin();
    await Promise.all([producer.connect(), admin.connect()]);
    try {
      await producer.append(topic, [{ key: 'k', value: 'v', headers: {} }]);
      await admin.partitionOffsets(topic);

      const timers = jest.spyOn(global, 'setTimeout');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const scheduled = timers.mock.calls.length;
      timers.mockRestore();
      // The wait itself is one; unpatched, each connection adds about 450.
      expect(scheduled).toBeLessThan(20);
    } finally {
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    }
  });
});
