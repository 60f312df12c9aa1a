import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventLogClient } from '@shortlink/kafka';
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
