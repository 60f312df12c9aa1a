import type { BatchLedger, PartitionBatch } from './batch-ledger';
import type { ClickRow } from './click-rows';
import { clickInsertGroups, type ReadyBatch } from './click-insert-groups';

const row = (partition: number, n: number): ClickRow => ({
  event_id: `e-${partition}-${n}`,
  link_id: 'l',
  account_id: 'a',
  slug: 's',
  domain: '',
  clicked_at: '2026-11-29 00:00:00.000',
  visitor_hash: 'v',
  referrer: 'Direct',
  country: 'XX',
  device: 'desktop',
  browser: 'Chrome',
  os: 'Linux',
  source_partition: partition,
  source_offset: String(n),
  trigger: 'link',
  rule: -1,
  variant: -1,
});

const batch = (partition: number, clicks: number, extra: Partial<ReadyBatch> = {}): ReadyBatch => ({
  partition,
  range: { first: 0n, last: BigInt(clicks - 1) },
  rows: Array.from({ length: clicks }, (_, n) => row(partition, n)),
  alone: false,
  owned: () => true,
  heartbeat: async () => {},
  ...extra,
});

/**
 * The world the group commit talks to: a ledger that binds what it is told
 * (but the partitions named in `taken`, bound by another owner), and a
 * ClickHouse whose inserts take as long as the test says.
 */
function world({ taken = [] as number[], failing = [] as string[] } = {}) {
  const inserts: { token: string; rows: ClickRow[] }[] = [];
  const stored = new Map<string, ClickRow[]>();
  let release: () => void = () => {};
  let hold = false;
  const ledger: Pick<BatchLedger, 'bind'> = {
    async bind(token: string, batches: PartitionBatch[], rowsOf: (bound: PartitionBatch[]) => ClickRow[]) {
      const bound = batches.filter((b) => !taken.includes(b.partition));
      if (bound.length > 0) stored.set(token, rowsOf(bound));
      return bound.map((b) => b.partition);
    },
  };
  const groups = clickInsertGroups({
    topic: 'clicks',
    ledger: ledger as BatchLedger,
    withoutCounted: async (rows) => rows.filter((r) => r.source_offset !== 'counted'),
    insert: async (rows, token) => {
      if (hold) await new Promise<void>((r) => (release = r));
      if (failing.includes(token)) throw new Error('ClickHouse refused');
      inserts.push({ token, rows });
    },
    retry: (step) => step(),
    maxClicks: 100,
  });
  return {
    groups,
    inserts,
    stored,
    holdInserts: () => (hold = true),
    releaseInsert: () => {
      hold = false;
      release();
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('the click inserts as a group commit', () => {
  it('sends a lone batch at once, under the token of its range', async () => {
    const { groups, inserts } = world();
    await expect(groups.send(batch(3, 5))).resolves.toEqual({ bound: true, token: 'clicks/3/0-4', inserted: 5 });
    expect(inserts).toHaveLength(1);
  });

  it('sends together the batches handed over while an insert is under way, under a token naming each', async () => {
    const w = world();
    w.holdInserts();
    const first = w.groups.send(batch(0, 2));
    await tick();
    const later = [1, 2, 3].map((p) => w.groups.send(batch(p, 3)));
    await tick();
    w.releaseInsert();
    await first;
    const outcomes = await Promise.all(later);
    expect(w.inserts.map((i) => i.token)).toEqual(['clicks/0/0-1', 'clicks/1/0-2+2/0-2+3/0-2']);
    expect(w.inserts[1]!.rows).toHaveLength(9);
    expect(outcomes).toEqual([1, 2, 3].map(() => ({ bound: true, token: 'clicks/1/0-2+2/0-2+3/0-2', inserted: 3 })));
  });

  it('starts the batches of one turn of the event loop together', async () => {
    const { groups, inserts } = world();
    await Promise.all([groups.send(batch(0, 1)), groups.send(batch(1, 1))]);
    expect(inserts.map((i) => i.token)).toEqual(['clicks/0/0-0+1/0-0']);
  });

  it('sends what the ledger kept for the insert, exactly: the clicks not counted before, of the batches bound', async () => {
    const w = world({ taken: [2] });
    const counted = batch(1, 3);
    counted.rows[1] = { ...counted.rows[1]!, source_offset: 'counted' };
    const outcomes = await Promise.all([
      w.groups.send(counted),
      w.groups.send(batch(2, 4)),
      w.groups.send(batch(5, 1)),
    ]);
    // Partition 2's batch was bound by another owner: handed back, and its neighbours go in without it.
    expect(outcomes).toEqual([
      { bound: true, token: 'clicks/1/0-2+2/0-3+5/0-0', inserted: 2 },
      { bound: false },
      { bound: true, token: 'clicks/1/0-2+2/0-3+5/0-0', inserted: 1 },
    ]);
    const [sent] = w.inserts;
    expect(sent!.rows.map((r) => r.event_id)).toEqual(['e-1-0', 'e-1-2', 'e-5-0']);
    expect(w.stored.get(sent!.token)).toEqual(sent!.rows);
  });

  it('sends nothing when no batch could be bound', async () => {
    const w = world({ taken: [4] });
    await expect(w.groups.send(batch(4, 2))).resolves.toEqual({ bound: false });
    expect(w.inserts).toHaveLength(0);
  });

  it('keeps a batch re-formed from another owner apart, in an insert of its own', async () => {
    const { groups, inserts } = world();
    await Promise.all([groups.send(batch(0, 1)), groups.send(batch(1, 1, { alone: true })), groups.send(batch(2, 1))]);
    expect(inserts.map((i) => i.token).sort()).toEqual(['clicks/0/0-0+2/0-0', 'clicks/1/0-0']);
  });

  it('puts no more than its most clicks in one insert, but never refuses a large batch', async () => {
    const { groups, inserts } = world();
    await Promise.all([groups.send(batch(0, 60)), groups.send(batch(1, 60)), groups.send(batch(2, 150))]);
    expect(inserts.map((i) => i.rows.length)).toEqual([60, 60, 150]);
    await Promise.all([groups.send(batch(0, 40)), groups.send(batch(1, 60)), groups.send(batch(2, 1))]);
    expect(inserts.slice(3).map((i) => i.rows.length)).toEqual([100, 1]);
  });

  it("fails only the batches of the insert that failed; the next insert's go in", async () => {
    const w = world({ failing: ['clicks/0/0-0'] });
    w.holdInserts();
    const failed = w.groups.send(batch(0, 1));
    await tick();
    const next = w.groups.send(batch(1, 1));
    await tick();
    w.releaseInsert();
    await expect(failed).rejects.toThrow('ClickHouse refused');
    await expect(next).resolves.toMatchObject({ bound: true, token: 'clicks/1/0-0' });
  });
});
