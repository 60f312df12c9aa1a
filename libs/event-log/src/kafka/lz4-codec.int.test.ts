import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { eventually, infraEnv, uniqueSuffix } from '@shortlink/testing';
import { ensureTopics } from './admin';
import { createKafka } from './client';
import { kafkaLogClient } from './kafkajs-log-client';

const env = infraEnv(process.env);
const run = promisify(execFile);

describe('LZ4-compressed appends (real broker)', () => {
  const brokers = env.KAFKA_BROKERS.split(',');
  const kafka = createKafka({ brokers, clientId: 'lz4-int-test' });
  const client = kafkaLogClient(kafka);
  // The codec createKafka registered, counted: an append that asked for LZ4 but sent plain batches would still
  // be read back unchanged, so the tests also hold the adapter to compressing them.
  const used = { compress: 0, decompress: 0 };
  const registered = CompressionCodecs[CompressionTypes.LZ4];
  CompressionCodecs[CompressionTypes.LZ4] = () => {
    const codec = registered();
    return {
      compress: (encoder: { buffer: Buffer }) => (used.compress++, codec.compress(encoder)),
      decompress: (buffer: Buffer) => (used.decompress++, codec.decompress(buffer)),
    };
  };
  const topic = `test.lz4.${uniqueSuffix()}`;
  // Clicks-like lines: what the clicks topic's batches hold.
  const values = Array.from({ length: 300 }, (_, n) =>
    JSON.stringify({
      eventId: `e-${n}`,
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0',
      referrer: 'Direct',
    }),
  );

  beforeAll(async () => {
    await ensureTopics(client, [{ topic, numPartitions: 2, configEntries: [] }]);
    const producer = client.producer();
    await producer.connect();
    try {
      // acks=all: the broker checks each compressed batch (it decompresses it) before it answers.
      await producer.append(
        topic,
        values.map((value, n) => ({ key: `k-${n % 7}`, value, headers: { 'event-type': 'Test' } })),
        { compression: 'lz4' },
      );
    } finally {
      await producer.disconnect();
    }
  });

  afterAll(() => {
    CompressionCodecs[CompressionTypes.LZ4] = registered;
  });

  it('are compressed by the producer, as the append asked', () => {
    expect(used.compress).toBeGreaterThan(0);
  });

  it('are read back, records unchanged, by kafkajs', async () => {
    const seen: string[] = [];
    const consumer = kafka.consumer({ groupId: `test.lz4.${uniqueSuffix()}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value!.toString());
        expect(message.headers?.['event-type']?.toString()).toBe('Test');
      },
    });
    try {
      await eventually(async () => (seen.length >= values.length ? true : undefined), 30_000, 'every record');
    } finally {
      await consumer.disconnect();
    }
    expect(seen.sort()).toEqual([...values].sort());
    expect(used.decompress).toBeGreaterThan(0);
  });

  it('are read back by kcat (librdkafka), as a data team reads the clicks topic', async () => {
    const { stdout } = await run('kcat', ['-b', brokers.join(','), '-C', '-t', topic, '-e', '-q', '-f', '%k %s\n'], {
      timeout: 30_000,
    });
    const lines = stdout.split('\n').filter((line) => line !== '');
    expect(lines.map((line) => line.slice(line.indexOf(' ') + 1)).sort()).toEqual([...values].sort());
    expect(new Set(lines.map((line) => line.slice(0, line.indexOf(' '))))).toEqual(
      new Set(Array.from({ length: 7 }, (_, n) => `k-${n}`)),
    );
  });
});
