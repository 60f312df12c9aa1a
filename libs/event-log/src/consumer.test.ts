import { createMetricsRegistry, type MetricsRegistry } from '@shortlink/metrics';
import { runConsumer, type MessageHandler } from './consumer';
import type { EventLogClient, LogProducer, LogRecord, OutgoingRecord } from './log-client';
import { isTransientFailure } from './transient-failure';
import { deadLetterReasonLabel } from './consumer-metrics';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const record = (offset: number, value: string): LogRecord => ({
  offset: String(offset),
  key: null,
  value: Buffer.from(value),
  timestamp: '0',
});

/** One partition's batch handed to the consumer once, as either adapter would; what it committed and parked is kept. */
async function consumeOnce(values: string[], handler: MessageHandler, registry: MetricsRegistry) {
  const commits: string[] = [];
  const parked: OutgoingRecord[] = [];
  let delivered: Promise<void> = Promise.resolve();
  const kafka = {
    consume: async (_subscription, eachBatch) => {
      delivered = eachBatch(
        {
          topic: 'links',
          partition: 0,
          records: values.map((v, i) => record(i, v)),
          highWatermark: String(values.length + 10),
        },
        {
          commit: async (next) => void commits.push(next),
          advance: () => undefined,
          heartbeat: async () => undefined,
          owned: () => true,
        },
      );
      return { stop: async () => undefined };
    },
  } as Pick<EventLogClient, 'consume'> as EventLogClient;
  const deadLetterProducer = {
    append: async (_topic: string, records: readonly OutgoingRecord[]) => void parked.push(...records),
  } as LogProducer;
  const consumer = await runConsumer({
    kafka,
    groupId: 'g',
    topics: ['links'],
    handler,
    logger: quiet,
    deadLetterProducer,
    deadLetterTopic: 'dlq',
    metrics: registry,
    maxBackoffMs: 1,
  });
  await delivered;
  await consumer.stop();
  return { commits, parked, consumer };
}

const value = async (registry: MetricsRegistry, name: string, labels: Record<string, string>) => {
  const metric = registry.getSingleMetric(name);
  const { values } = await metric!.get();
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
};

describe('runConsumer deciding retriable versus fatal', () => {
  let registry: MetricsRegistry;
  beforeEach(() => (registry = createMetricsRegistry({ processMetrics: false })));

  it('parks a malformed message at once and moves on', async () => {
    // Given a handler that finds message 1 malformed
    let calls = 0;
    const { commits, parked } = await consumeOnce(
      ['ok', 'bad', 'ok'],
      async (m) => {
        calls++;
        return m.value?.toString() === 'bad'
          ? { kind: 'dead-letter', reason: 'invalid-json: Unexpected token' }
          : { kind: 'ok' };
      },
      registry,
    );
    // Then it was asked once, parked with its reason, and the partition committed past it
    expect(calls).toBe(3);
    expect(parked.map((p) => p.headers?.['dlq-reason'])).toEqual(['invalid-json: Unexpected token']);
    expect(commits).toEqual(['3']);
    expect(await value(registry, 'shortlink_dead_letters_total', { reason: 'invalid_json' })).toBe(1);
    expect(await value(registry, 'shortlink_consumer_messages_total', { outcome: 'ok' })).toBe(2);
  });

  it('retries a dependency outage until it is back, never parking the message, and counts the retries', async () => {
    // Given a handler whose Postgres refuses connections four times
    let failures = 0;
    const { commits, parked } = await consumeOnce(
      ['a'],
      async () => {
        if (failures++ < 4)
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        return { kind: 'ok' };
      },
      registry,
    );
    // Then the message was handled after the outage, nothing parked
    expect(parked).toEqual([]);
    expect(commits).toEqual(['1']);
    expect(await value(registry, 'shortlink_consumer_retries_total', { reason: 'dependency_outage' })).toBe(4);
    expect(await value(registry, 'shortlink_consumer_messages_total', { outcome: 'ok' })).toBe(1);
  });

  it('parks a poison message whose handler keeps failing with its own error, so the partition never stalls', async () => {
    // Given a handler that throws a TypeError on message 1, every time
    let attempts = 0;
    const { commits, parked } = await consumeOnce(
      ['ok', 'poison', 'ok'],
      async (m) => {
        if (m.value?.toString() === 'poison') {
          attempts++;
          throw new TypeError("Cannot read properties of undefined (reading 'slug')");
        }
        return { kind: 'ok' };
      },
      registry,
    );
    // Then it was tried three times, then parked, and the messages after it handled
    expect(attempts).toBe(3);
    expect(parked).toHaveLength(1);
    expect(String(parked[0]!.headers?.['dlq-reason'])).toMatch(/^handler-error: Cannot read properties/);
    expect(commits).toEqual(['3']);
    expect(await value(registry, 'shortlink_consumer_retries_total', { reason: 'handler_error' })).toBe(2);
    expect(await value(registry, 'shortlink_dead_letters_total', { reason: 'handler_error' })).toBe(1);
  });

  it('reports the lag of the partition against the high watermark of the batch', async () => {
    await consumeOnce(['a', 'b'], async () => ({ kind: 'ok' }), registry);
    // high watermark 12, next offset 2
    expect(await value(registry, 'shortlink_consumer_lag', { group: 'g', topic: 'links', partition: '0' })).toBe(10);
  });
});

describe('isTransientFailure', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('x'), { code: 'ECONNREFUSED' })],
    ['Postgres shutting down', Object.assign(new Error('x'), { code: '57P01' })],
    ['a serialization failure', Object.assign(new Error('x'), { code: '40001' })],
    ['the pool timing out', new Error('timeout exceeded when trying to connect')],
    ['a kafkajs error', Object.assign(new Error('x'), { name: 'KafkaJSNumberOfRetriesExceeded' })],
    ['ClickHouse out of memory', Object.assign(new Error('x'), { code: '241', type: 'MEMORY_LIMIT_EXCEEDED' })],
    ['an outage as the cause', new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) })],
  ])('is true for %s', (_name, error) => expect(isTransientFailure(error)).toBe(true));

  it.each([
    ['a TypeError', new TypeError('x is undefined')],
    ['a unique violation', Object.assign(new Error('x'), { code: '23505' })],
    ['an invalid text representation', Object.assign(new Error('x'), { code: '22P02' })],
    ['ClickHouse refusing a value', Object.assign(new Error('x'), { code: '27', type: 'CANNOT_PARSE_INPUT' })],
    ['a string', 'boom'],
  ])('is false for %s', (_name, error) => expect(isTransientFailure(error)).toBe(false));
});

describe('deadLetterReasonLabel', () => {
  it('labels a reason by its leading word, keeping the text out of the series', () => {
    expect(deadLetterReasonLabel('invalid-event: data.slug: Required')).toBe('invalid_event');
    expect(deadLetterReasonLabel('handler-error: boom (after 3 attempts)')).toBe('handler_error');
    expect(deadLetterReasonLabel('  ?')).toBe('other');
  });
});
