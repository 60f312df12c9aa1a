import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PartitionLog, type NewRecord } from './partition-log';

const record = (value: string): NewRecord => ({ key: Buffer.from('k'), value: Buffer.from(value), headers: {} });
const values = async (log: PartitionLog) =>
  (await log.read(0n, 1 << 20)).map((r) => `${r.offset}:${r.value?.toString() ?? ''}`);

/** The log's file handle, with its next `fdatasync` (or `truncate` too) failing as the kernel's EIO would. */
function failNext(log: PartitionLog, ...calls: ('datasync' | 'truncate')[]) {
  const file = (log as unknown as { file: Record<string, (...args: unknown[]) => Promise<unknown>> }).file;
  for (const call of calls) {
    const original = file[call]!.bind(file);
    let armed = true;
    file[call] = async (...args: unknown[]) => {
      if (!armed) return original(...args);
      armed = false;
      throw Object.assign(new Error(`EIO: i/o error, ${call}`), { code: 'EIO' });
    };
  }
}

describe('a partition log whose disk fails an append', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'partition-log-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('refuses that append, and keeps every acknowledged one, across a reopen', async () => {
    const path = join(dir, 'p0.log');
    const log = await PartitionLog.open(path);
    expect(await log.append([record('a')], 1)).toBe(0n);
    failNext(log, 'datasync');
    await expect(log.append([record('refused')], 2)).rejects.toMatchObject({ code: 'EIO' });
    expect(await log.append([record('b')], 3)).toBe(1n);
    expect(await values(log)).toEqual(['0:a', '1:b']);
    await log.close();

    const reopened = await PartitionLog.open(path);
    expect(await values(reopened)).toEqual(['0:a', '1:b']);
    await reopened.close();
  });

  it('refuses every append when the refused one cannot be taken out, until it is opened again', async () => {
    const path = join(dir, 'p0.log');
    const log = await PartitionLog.open(path);
    expect(await log.append([record('a')], 1)).toBe(0n);
    failNext(log, 'datasync', 'truncate');
    await expect(log.append([record('refused')], 2)).rejects.toMatchObject({ code: 'EIO' });
    await expect(log.append([record('b')], 3)).rejects.toThrow(/could not be taken back out/);
    await log.close();

    // The refused line is whole on disk: never acknowledged, it is read back as a record, and nothing acknowledged is lost.
    const reopened = await PartitionLog.open(path);
    expect((await values(reopened))[0]).toBe('0:a');
    expect(await reopened.append([record('c')], 4)).toBe(reopened.endOffset - 1n);
    await reopened.close();
  });
});
