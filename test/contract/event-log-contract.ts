/**
 * What every adapter of the project's event-log interface must do, whether
 * the events live on Kafka or in the embedded log: the services are written
 * against this behaviour, not against either implementation.
 */
import { createMetricsRegistry, type MetricsRegistry } from '@shortlink/metrics';
import {
  partitionOfKey,
  runConsumer,
  waitForGroupToCatchUp,
  type BatchHandler,
  type EventLogClient,
  type LogRecord,
  type RunningLogConsumer,
} from '@shortlink/event-log';

export interface EventLogUnderTest {
  client: EventLogClient;
  /** A new, empty topic with this many partitions. */
  newTopic(partitions: number): Promise<string>;
  newGroup(): string;
}

/** Polls until the assertion holds, then returns; fails with its last error after the timeout. */
async function eventually(assertion: () => unknown, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
/** The values read, each once, sorted. */
const distinctValues = (seen: { record: LogRecord }[]) =>
  [...new Set(seen.map((s) => s.record.value?.toString('utf8') ?? ''))].sort();
const text = (b: Buffer | null) => (b === null ? null : b.toString('utf8'));
const headerText = (r: LogRecord, name: string) => {
  const v = r.headers?.[name];
  const last = Array.isArray(v) ? v[v.length - 1] : v;
  return last === undefined ? undefined : String(last);
};

/** One series' value in a registry, or undefined. */
async function sample(registry: MetricsRegistry, name: string, labels: Record<string, string>) {
  const { values } = await registry.getSingleMetric(name)!.get();
  return values.find((v) => Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l))?.value;
}

export function eventLogContract(open: () => Promise<EventLogUnderTest>, close: () => Promise<void>) {
  let log: EventLogUnderTest;
  const running: RunningLogConsumer[] = [];

  beforeAll(async () => {
    log = await open();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => c.stop()));
  });
  afterAll(close);

  async function append(
    topic: string,
    records: { key: string | null; value: string; headers?: Record<string, string> }[],
  ) {
    const producer = log.client.producer();
    await producer.connect();
    try {
      await producer.append(topic, records);
    } finally {
      await producer.disconnect();
    }
  }

  /** Consumes into `seen`, committing each batch in full unless the handler says otherwise. */
  async function consume(
    topic: string,
    groupId: string,
    options: { fromBeginning?: boolean; onBatch?: BatchHandler } = {},
  ) {
    const seen: { partition: number; record: LogRecord }[] = [];
    const consumer = await log.client.consume(
      { groupId, topics: [topic], fromBeginning: options.fromBeginning ?? true, sessionTimeoutMs: 10_000 },
      options.onBatch ??
        (async (batch, control) => {
          for (const record of batch.records) seen.push({ partition: batch.partition, record });
          const last = batch.records[batch.records.length - 1];
          if (last) await control.commit((BigInt(last.offset) + 1n).toString());
        }),
    );
    running.push(consumer);
    const stop = async () => {
      running.splice(running.indexOf(consumer), 1);
      await consumer.stop();
    };
    return { seen, stop };
  }

  it('delivers what was appended, byte for byte, each key in the partition Kafka’s producers choose', async () => {
    const topic = await log.newTopic(3);
    const keys = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
    await append(
      topic,
      keys.map((key) => ({ key, value: `{"k":"${key}","é":"\u0000"}`, headers: { 'event-type': 'X' } })),
    );
    const { seen } = await consume(topic, log.newGroup());
    // Each key once at least: Kafka's producer may append a record twice when it resends a request.
    await eventually(() => expect(new Set(seen.map((s) => text(s.record.key))).size).toBe(keys.length), 30_000);
    for (const { partition, record } of seen) {
      const key = text(record.key)!;
      expect(partition).toBe(partitionOfKey(key, 3));
      expect(text(record.value)).toBe(`{"k":"${key}","é":"\u0000"}`);
      expect(headerText(record, 'event-type')).toBe('X');
      expect(Number(record.timestamp)).toBeGreaterThan(Date.now() - 600_000);
    }
  });

  it('resumes a group after its committed offsets, and reports them', async () => {
    const topic = await log.newTopic(2);
    const groupId = log.newGroup();
    await append(
      topic,
      ['a', 'b', 'c'].map((v) => ({ key: v, value: v })),
    );
    const first = await consume(topic, groupId);
    await eventually(() => expect(distinctValues(first.seen)).toEqual(['a', 'b', 'c']), 30_000);
    await first.stop();

    await append(
      topic,
      ['d', 'e'].map((v) => ({ key: v, value: v })),
    );
    const second = await consume(topic, groupId);
    await eventually(() => expect(distinctValues(second.seen)).toEqual(['d', 'e']), 30_000);
    await second.stop();

    const admin = log.client.admin();
    await admin.connect();
    try {
      // Committed exactly to the end of each partition (counted in records, a resent copy included).
      const committed = await admin.committedOffsets(groupId, topic);
      const ends = await admin.partitionOffsets(topic);
      expect(committed.map((p) => [p.partition, Number(p.offset)]).sort()).toEqual(
        ends.map((p) => [p.partition, Number(p.high)]).sort(),
      );
      expect(ends.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0)).toBeGreaterThanOrEqual(5);
    } finally {
      await admin.disconnect();
    }
  });

  it('starts a new group at the end of the topic unless asked for the beginning', async () => {
    const topic = await log.newTopic(1);
    await append(topic, [{ key: 'k', value: 'old' }]);
    const groupId = log.newGroup();
    const late = await consume(topic, groupId, { fromBeginning: false });
    const admin = log.client.admin();
    await admin.connect();
    await eventually(async () => expect(await admin.groupIsActive(groupId)).toBe(true), 30_000);
    await admin.disconnect();
    // An active member may not have looked up where it starts yet (Kafka's consumer does on its first
    // fetch): a record appended before that is behind it. Markers until one arrives, then none old.
    for (let n = 0; late.seen.length === 0; n++) {
      if (n === 60) throw new Error('no marker arrived in 30 s');
      await append(topic, [{ key: 'k', value: `new-${n}` }]);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(late.seen.map((s) => text(s.record.value)).every((v) => v?.startsWith('new-'))).toBe(true);
  });

  it('delivers again, from the last commit, what a failed handler did not commit', async () => {
    const topic = await log.newTopic(1);
    await append(
      topic,
      ['1', '2', '3', '4'].map((v) => ({ key: 'same', value: v })),
    );
    const batches: string[][] = [];
    let fail = true;
    await consume(topic, log.newGroup(), {
      onBatch: async (batch, control) => {
        batches.push(batch.records.map((r) => text(r.value)!));
        if (fail) {
          fail = false;
          await control.commit((BigInt(batch.records[1]!.offset) + 1n).toString());
          throw new Error('insert failed');
        }
        const last = batch.records[batch.records.length - 1]!;
        await control.commit((BigInt(last.offset) + 1n).toString());
      },
    });
    await eventually(() => expect(batches.length).toBeGreaterThanOrEqual(2), 30_000);
    expect(batches[0]).toEqual(['1', '2', '3', '4']);
    expect(batches[1]).toEqual(['3', '4']);
  });

  it('keeps consuming after a failure its client will not retry on its own (a new member takes over)', async () => {
    const topic = await log.newTopic(1);
    await append(
      topic,
      ['1', '2'].map((v) => ({ key: 'same', value: v })),
    );
    const seen: string[] = [];
    let failed = false;
    await consume(topic, log.newGroup(), {
      onBatch: async (batch, control) => {
        if (!failed) {
          failed = true;
          // What kafkajs raises when the group refused a commit: a client that stops here stops for good.
          throw Object.assign(new Error('the coordinator is not aware of this member'), {
            name: 'KafkaJSNonRetriableError',
            retriable: false,
          });
        }
        seen.push(...batch.records.map((r) => text(r.value)!));
        await control.commit((BigInt(batch.records[batch.records.length - 1]!.offset) + 1n).toString());
      },
    });
    await eventually(() => expect(seen).toEqual(['1', '2']), 60_000);
  });

  it('runs the project’s consumer on it: retries, dead letters, and a catch-up check that sees the end', async () => {
    const topic = await log.newTopic(3);
    const deadLetters = await log.newTopic(1);
    const groupId = log.newGroup();
    await append(
      topic,
      Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `${i}` })),
    );
    const handled: string[] = [];
    let failures = 0;
    const deadLetterProducer = log.client.producer();
    await deadLetterProducer.connect();
    const consumer = await runConsumer({
      kafka: log.client,
      groupId,
      topics: [topic],
      logger: quiet,
      deadLetterProducer,
      deadLetterTopic: deadLetters,
      maxBackoffMs: 10,
      metrics: createMetricsRegistry({ processMetrics: false }),
      partitionsConcurrently: 3,
      sessionTimeoutMs: 10_000,
      handler: async (message) => {
        const value = text(message.value)!;
        if (value === '7' && failures++ < 2) throw new Error('transient');
        if (value === '13') return { kind: 'dead-letter', reason: 'unlucky' };
        handled.push(value);
        return { kind: 'ok' };
      },
    });
    const admin = log.client.admin();
    await admin.connect();
    try {
      await expect(waitForGroupToCatchUp(admin, groupId, topic, 30_000)).resolves.toBe(true);
      await consumer.stop();
      await deadLetterProducer.disconnect();
      expect(handled.sort((a, b) => Number(a) - Number(b))).toEqual(
        Array.from({ length: 30 }, (_, i) => `${i}`).filter((v) => v !== '13'),
      );
      expect(consumer.metrics.byTopic.get(topic)).toMatchObject({ ok: 29, deadLetter: 1, retries: 2 });
      const parked = await consume(deadLetters, log.newGroup());
      await eventually(() => expect(parked.seen).toHaveLength(1), 30_000);
      const record = parked.seen[0]!.record;
      expect([text(record.value), headerText(record, 'dlq-reason'), headerText(record, 'dlq-source-topic')]).toEqual([
        '13',
        'unlucky',
        topic,
      ]);
    } finally {
      await admin.disconnect();
    }
  });

  it('parks a poison message among good ones, retries an outage, and never stalls the partition; its lag ends at 0', async () => {
    // Given one partition holding good messages, a poison one (its handler fails with its own error every
    // time) and a malformed one, and a handler whose Postgres refuses once
    const topic = await log.newTopic(1);
    const deadLetters = await log.newTopic(1);
    const groupId = log.newGroup();
    const values = ['g0', 'g1', 'poison', 'g2', 'malformed', 'g3', 'g4'];
    await append(
      topic,
      values.map((value) => ({ key: 'one-partition', value })),
    );
    const metrics = createMetricsRegistry({ processMetrics: false });
    const handled: string[] = [];
    let outages = 0;
    const deadLetterProducer = log.client.producer();
    await deadLetterProducer.connect();
    // When the project's consumer runs on it
    const consumer = await runConsumer({
      kafka: log.client,
      groupId,
      topics: [topic],
      logger: quiet,
      deadLetterProducer,
      deadLetterTopic: deadLetters,
      maxBackoffMs: 10,
      metrics,
      sessionTimeoutMs: 10_000,
      handler: async (message) => {
        const value = text(message.value)!;
        if (value === 'poison') throw new TypeError("Cannot read properties of undefined (reading 'linkId')");
        if (value === 'malformed') return { kind: 'dead-letter', reason: 'invalid-json: Unexpected token' };
        if (value === 'g1' && outages++ === 0) {
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        }
        handled.push(value);
        return { kind: 'ok' };
      },
    });
    const admin = log.client.admin();
    await admin.connect();
    try {
      // Then every good message is handled, in order, past the poison one
      await expect(waitForGroupToCatchUp(admin, groupId, topic, 30_000)).resolves.toBe(true);
      await consumer.stop();
      await deadLetterProducer.disconnect();
      expect(handled).toEqual(['g0', 'g1', 'g2', 'g3', 'g4']);
      // And the poison and the malformed messages are parked, each with why
      const parked = await consume(deadLetters, log.newGroup());
      await eventually(() => expect(parked.seen).toHaveLength(2), 30_000);
      expect(parked.seen.map(({ record }) => [text(record.value), headerText(record, 'dlq-reason')])).toEqual([
        ['poison', expect.stringMatching(/^handler-error: Cannot read properties of undefined/)],
        ['malformed', 'invalid-json: Unexpected token'],
      ]);
      // And the metrics say so
      const labels = { group: groupId, topic };
      expect(await sample(metrics, 'shortlink_dead_letters_total', { ...labels, reason: 'handler_error' })).toBe(1);
      expect(await sample(metrics, 'shortlink_dead_letters_total', { ...labels, reason: 'invalid_json' })).toBe(1);
      expect(
        await sample(metrics, 'shortlink_consumer_retries_total', { ...labels, reason: 'dependency_outage' }),
      ).toBe(1);
      expect(await sample(metrics, 'shortlink_consumer_retries_total', { ...labels, reason: 'handler_error' })).toBe(2);
      expect(await sample(metrics, 'shortlink_consumer_messages_total', { ...labels, outcome: 'ok' })).toBe(5);
      expect(await sample(metrics, 'shortlink_consumer_lag', { ...labels, partition: '0' })).toBe(0);
    } finally {
      await admin.disconnect();
    }
  });

  it('runs the consumer with records in hand: reads on past a slow record, commits up to it, and its next owner starts there', async () => {
    // Given one partition of ten records, and a handler that holds record 3 until it is stopped
    const topic = await log.newTopic(1);
    const groupId = log.newGroup();
    const values = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `${from + i}`);
    await append(
      topic,
      values(0, 10).map((value) => ({ key: 'one-partition', value })),
    );
    const handled: string[] = [];
    const stopping = new AbortController();
    const start = (hold: string | null) =>
      runConsumer({
        kafka: log.client,
        groupId,
        topics: [topic],
        logger: quiet,
        deadLetterProducer: log.client.producer(),
        deadLetterTopic: 'unused',
        metrics: createMetricsRegistry({ processMetrics: false }),
        sessionTimeoutMs: 10_000,
        recordsInHand: 100,
        handler: async (message) => {
          const value = text(message.value)!;
          if (value === hold) {
            await new Promise((_, reject) =>
              stopping.signal.addEventListener('abort', () => reject(new Error('stop'))),
            );
          }
          handled.push(value);
          return { kind: 'ok' };
        },
      });
    const admin = log.client.admin();
    await admin.connect();
    const committed = async () => Number((await admin.committedOffsets(groupId, topic))[0]?.offset ?? -1);
    try {
      // When the consumer runs, and ten more records come while record 3 is held
      const first = await start('3');
      await eventually(() => expect(handled).toHaveLength(9), 30_000);
      await append(
        topic,
        values(10, 20).map((value) => ({ key: 'one-partition', value })),
      );
      // Then it read on and handled each of them once (none delivered again), and committed no further than 3
      await eventually(() => expect(handled).toHaveLength(19), 30_000);
      await new Promise((r) => setTimeout(r, 500));
      expect([...handled].sort((a, b) => Number(a) - Number(b))).toEqual(values(0, 20).filter((v) => v !== '3'));
      expect(await committed()).toBe(3);
      const stopped = first.stop();
      stopping.abort();
      await stopped;
      expect(await committed()).toBe(3);
      // And the partition's next owner starts at record 3, and ends past the last
      handled.length = 0;
      const second = await start(null);
      await eventually(async () => expect(await committed()).toBe(20), 30_000);
      await second.stop();
      expect(handled[0]).toBe('3');
      expect([...handled].sort((a, b) => Number(a) - Number(b))).toEqual(values(3, 20));
    } finally {
      await admin.disconnect();
    }
  });

  it('tells whether a group is consuming, and forgets a deleted group’s offsets', async () => {
    const topic = await log.newTopic(1);
    const groupId = log.newGroup();
    await append(topic, [{ key: 'k', value: 'v' }]);
    const admin = log.client.admin();
    await admin.connect();
    try {
      expect(await admin.groupIsActive(groupId)).toBe(false);
      const member = await consume(topic, groupId);
      await eventually(() => expect(member.seen).toHaveLength(1), 30_000);
      expect(await admin.groupIsActive(groupId)).toBe(true);
      await member.stop();
      await eventually(async () => expect(await admin.groupIsActive(groupId)).toBe(false), 30_000);
      expect(await admin.committedOffsets(groupId, topic)).toEqual([{ partition: 0, offset: '1' }]);
      await admin.deleteGroup(groupId);
      expect(await admin.committedOffsets(groupId, topic)).toEqual([{ partition: 0, offset: '-1' }]);
      expect(await admin.createMissingTopics([{ topic, numPartitions: 5, configEntries: [] }], 1)).toEqual([]);
      expect(await admin.partitionOffsets(topic)).toEqual([{ partition: 0, low: '0', high: '1' }]);
    } finally {
      await admin.disconnect();
    }
  });
}
