import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventLogClient } from '../log-client';
import { embeddedLogClient } from './embedded-client';
import { EventLog } from './event-log';

// What every adapter of the event-log interface does is in test/contract/event-log-contract.ts;
// this file holds what is particular to the embedded log: its files, and one member per group.

let dir: string;
let log: EventLog;
let client: EventLogClient;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'event-log-'));
  log = await EventLog.open(dir);
  client = embeddedLogClient(log);
  await log.createTopic({ topic: 't', numPartitions: 3 });
});

afterEach(async () => {
  await log.close();
  await rm(dir, { recursive: true, force: true });
});

async function reopen(): Promise<void> {
  await log.close();
  log = await EventLog.open(dir);
  client = embeddedLogClient(log);
}

const values = (records: readonly { value: Buffer | null }[]) => records.map((r) => r.value!.toString());

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('EventLog', () => {
  it('keeps records, keys, headers and bytes exactly, across a reopen', async () => {
    const binary = Buffer.from([0xff, 0x00, 0xfe, 0x0a]);
    const base = await log.append('t', 1, [
      { key: Buffer.from('k1'), value: Buffer.from('{"a":1}'), headers: { 'event-type': Buffer.from('X') } },
      { key: null, value: binary, headers: {} },
      { key: Buffer.from('k3'), value: null, headers: {} },
    ]);
    expect(base).toBe(0n);
    await reopen();
    const records = await log.read('t', 1, 0n, 1 << 20);
    expect(records.map((r) => [r.offset, r.key?.toString() ?? null, r.value, r.headers])).toEqual([
      [0n, 'k1', Buffer.from('{"a":1}'), { 'event-type': Buffer.from('X') }],
      [1n, null, binary, {}],
      [2n, 'k3', null, {}],
    ]);
    expect(log.endOffsets('t')).toEqual([0n, 3n, 0n]);
  });

  it('reads the same records from its memory of the latest ones as from the file, and the older ones from the file', async () => {
    // A tail of ~300 bytes per partition: most records below have left memory by the end.
    const small = await EventLog.open(join(dir, 'small'), { tailBytes: 300 });
    await small.createTopic({ topic: 's', numPartitions: 1 });
    // Twenty batches of 3, then one of 10 that overflows the tail by itself.
    const batches = Array.from({ length: 21 }, (_, b) =>
      Array.from({ length: b === 20 ? 10 : 3 }, (_, i) => ({
        key: Buffer.from(`k${b}-${i}`),
        value: i === 1 ? Buffer.from([0xff, b, 0x0a]) : Buffer.from(`{"n":${b * 3 + i}}`),
        headers: { 'event-type': Buffer.from(`E${b}`) },
      })),
    );
    const seen = [];
    for (const batch of batches) {
      const base = await small.append('s', 0, batch);
      // What a consumer that keeps up reads: the batch just appended, from memory.
      seen.push(...(await small.read('s', 0, base, 1 << 20)));
    }
    const lastTwo = await small.read('s', 0, 68n, 1 << 20);
    const fromMemoryAndFile = await small.read('s', 0, 0n, 1 << 20);
    await small.close();
    const reopened = await EventLog.open(join(dir, 'small'));
    const fromFile = await reopened.read('s', 0, 0n, 1 << 20);
    await reopened.close();
    const flat = batches.flat();
    const shape = (records: typeof fromFile) => records.map((r) => [r.offset, r.key, r.value, r.headers]);
    const expected = flat.map((r, i) => [BigInt(i), r.key, r.value, r.headers]);
    expect(shape(seen)).toEqual(expected);
    expect(shape(fromMemoryAndFile)).toEqual(expected);
    expect(shape(lastTwo)).toEqual(expected.slice(68));
    expect(shape(fromFile)).toEqual(expected);
    expect(fromFile.map((r) => r.timestamp)).toEqual(fromMemoryAndFile.map((r) => r.timestamp));
  });

  it('cuts a torn last line (a write cut short by a kill) when it reopens', async () => {
    const record = (v: string) => ({ key: null, value: Buffer.from(v), headers: {} });
    await log.append('t', 0, [record('one'), record('two')]);
    const file = join(dir, 'topics', 't', '0.log');
    await appendFile(file, '{"o":"2","t":1,"v":"thr');
    await reopen();
    expect(values(await log.read('t', 0, 0n, 1 << 20))).toEqual(['one', 'two']);
    expect(await log.append('t', 0, [record('three')])).toBe(2n);
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('refuses a topic that does not exist, as a broker without auto-creation does', async () => {
    await expect(client.producer().append('nope', [{ key: 'k', value: 'x' }])).rejects.toThrow(
      /does not host this topic/,
    );
  });
});

describe('consumer groups on the embedded log', () => {
  it('lets a second member of a group take over only when the first leaves', async () => {
    const seen = { a: [] as string[], b: [] as string[] };
    const member = (name: 'a' | 'b') =>
      client.consume({ groupId: 'shared', topics: ['t'], fromBeginning: true }, async (batch, control) => {
        seen[name].push(...values(batch.records));
        await control.commit((BigInt(batch.records[batch.records.length - 1]!.offset) + 1n).toString());
      });
    const producer = client.producer();
    await producer.append('t', [{ key: 'k', value: 'x' }]);
    const a = await member('a');
    const b = await member('b');
    await until(() => seen.a.length === 1);
    await producer.append('t', [{ key: 'k', value: 'y' }]);
    await until(() => seen.a.length === 2);
    expect(seen.b).toEqual([]);
    await a.stop();
    await producer.append('t', [{ key: 'k', value: 'z' }]);
    await until(() => seen.b.length === 1);
    expect(seen.b).toEqual(['z']);
    await b.stop();
  });

  it('given a minimum fetch size, waits for a fuller batch, up to the maximum wait', async () => {
    const batches: string[][] = [];
    const consumer = await client.consume(
      { groupId: 'batching', topics: ['t'], fromBeginning: true, fetchMinBytes: 1 << 20, fetchMaxWaitMs: 400 },
      async (batch, control) => {
        batches.push(values(batch.records));
        await control.commit((BigInt(batch.records[batch.records.length - 1]!.offset) + 1n).toString());
      },
    );
    // Three appends to one partition, each as soon as the one before is on disk.
    for (const value of ['a', 'b', 'c'])
      await log.append('t', 0, [{ key: null, value: Buffer.from(value), headers: {} }]);
    await until(() => batches.flat().length === 3);
    expect(batches).toEqual([['a', 'b', 'c']]);
    await consumer.stop();
  });
});
