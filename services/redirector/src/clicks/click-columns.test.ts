import { MessageChannel } from 'node:worker_threads';
import fc from 'fast-check';
import { toClickColumns, type ClickColumns } from './click-columns';
import type { RawClick } from './raw-click';

/** What the columns mean: click i, field by field. */
function fromClickColumns(columns: ClickColumns): RawClick[] {
  const { links } = columns;
  return Array.from(columns.sequence, (sequence, i) => {
    const link = columns.linkIndex[i]!;
    return {
      sequence,
      linkId: links.linkId[link]!,
      accountId: links.accountId[link]!,
      slug: links.slug[link]!,
      clickedAt: columns.clickedAt[i]!,
      ip: columns.ips[columns.ipIndex[i]!]!,
      userAgent: columns.userAgents[columns.userAgentIndex[i]!]!,
      referer: columns.referers[columns.refererIndex[i]!] ?? undefined,
      scanned: columns.scanned[i] === 1,
    };
  });
}

const rawClick = fc.record({
  sequence: fc.nat({ max: 2 ** 32 - 1 }),
  linkId: fc.constantFrom('9c3b2a10-1d2e-4f5a-8b6c-7d8e9f0a1b2c', '0e6f1a52-7d0c-4b8e-a3a5-2f9b7c1d4e60'),
  accountId: fc.constantFrom('5b0d3c1e-8f4a-4c55-9d56-000000000001', '5b0d3c1e-8f4a-4c55-9d56-000000000002'),
  slug: fc.constantFrom('launch-26', 'x'),
  clickedAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  ip: fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()),
  userAgent: fc.oneof(fc.constantFrom('Mozilla/5.0 A', 'Mozilla/5.0 B'), fc.string({ maxLength: 300, unit: 'binary' })),
  referer: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
  scanned: fc.boolean(),
}) as fc.Arbitrary<RawClick>;

describe('clicks crossing to the worker as columns', () => {
  it('come back as the same clicks, in order, referer absent where it was', () => {
    fc.assert(
      fc.property(fc.array(rawClick, { maxLength: 50 }), (clicks) => {
        expect(fromClickColumns(toClickColumns(clicks))).toEqual(clicks);
      }),
    );
  });

  it('carry each distinct user agent once', () => {
    const clicks = fc
      .sample(rawClick, 30)
      .map((c, i) => ({ ...c, userAgent: i % 3 === 0 ? 'Mozilla/5.0 A' : 'curl/8' }));
    const columns = toClickColumns(clicks);
    expect(columns.userAgents.sort()).toEqual(['Mozilla/5.0 A', 'curl/8']);
  });

  it('carry each distinct client address and referer once, a missing referer as one more', () => {
    const clicks = fc.sample(rawClick, 30).map((c, i) => ({
      ...c,
      ip: i % 2 === 0 ? '203.0.113.7' : '2001:db8::1',
      referer: [undefined, 'https://news.example/a', 'https://news.example/b'][i % 3],
    }));
    const columns = toClickColumns(clicks);
    expect(columns.ips).toEqual(['203.0.113.7', '2001:db8::1']);
    expect(columns.referers).toEqual([null, 'https://news.example/a', 'https://news.example/b']);
    expect(fromClickColumns(columns)).toEqual(clicks);
  });

  it('carry each distinct link once, and never give a click another link’s account or slug', () => {
    const [sample] = fc.sample(rawClick, 1) as [RawClick];
    const a = { ...sample, linkId: 'link-a', accountId: 'account-1', slug: 'a' };
    const b = { ...sample, linkId: 'link-b', accountId: 'account-1', slug: 'b' };
    expect(toClickColumns([a, b, a, b, a]).links.linkId).toEqual(['link-a', 'link-b']);
    const odd = [a, b, { ...a, slug: 'not-a' }, a, { ...a, accountId: 'account-2' }, b];
    expect(fromClickColumns(toClickColumns(odd))).toEqual(odd);
  });

  it('survive postMessage as they are', async () => {
    const clicks = fc.sample(rawClick, 20);
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<unknown>((resolve) => port2.once('message', resolve));
    port1.postMessage(toClickColumns(clicks));
    expect(fromClickColumns((await received) as ReturnType<typeof toClickColumns>)).toEqual(clicks);
    port1.close();
  });
});
