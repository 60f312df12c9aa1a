import { randomUUID } from 'node:crypto';
import { clickRecorded, storablePrefix, type ClickRecorded } from '@shortlink/events';
import fc from 'fast-check';
import { addressFacts } from './address-facts';
import { toClickColumns } from './click-columns';
import { clickEventLines } from './click-event';
import { clickEventId, clickEventIds } from './click-event-id';
import { headerText } from './header-text';
import { canonicalClientAddress } from './client-address';
import { referrerOrigin } from './referrer-origin';
import { visitorHash } from './visitor-hash';
import type { RawClick } from './raw-click';

const secret = 'a-secret-of-some-length-0123';
const ids = clickEventIds();
const context = {
  factsOf: addressFacts({
    visitorSecret: secret,
    countryOf: (ip: string) => (ip === '203.0.113.77' ? 'GB' : 'XX'),
  }),
  eventIdPrefix: ids.prefix,
};
const click = (ip: string): RawClick => ({
  sequence: ids.next(),
  linkId: randomUUID(),
  accountId: randomUUID(),
  slug: 'abc12',
  clickedAt: Date.UTC(2026, 10, 23),
  ip,
  userAgent: 'Mozilla/5.0',
  referer: undefined,
  scanned: false,
});

const linesOf = (clicks: RawClick[]) => clickEventLines(toClickColumns(clicks), context);
const eventsOf = (clicks: RawClick[]) => linesOf(clicks).lines.map((line) => JSON.parse(line) as ClickRecorded);

describe('clicks as their events', () => {
  it('are each click’s own event, whatever the batch shares between its clicks', () => {
    const uuids = (n: number) => fc.constantFrom(...Array.from({ length: n }, () => randomUUID()));
    const raw = fc.record({
      sequence: fc.nat({ max: 2 ** 32 - 1 }),
      linkId: uuids(3),
      accountId: uuids(2),
      slug: fc.constantFrom('abc12', 'launch-26'),
      clickedAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
      ip: fc.oneof(fc.constantFrom('203.0.113.77', '::ffff:203.0.113.77', '2001:db8::77'), fc.ipV4(), fc.string()),
      userAgent: fc.oneof(fc.constantFrom('Mozilla/5.0 A', 'Mozilla/5.0 B'), fc.string({ maxLength: 1100 })),
      referer: fc.option(
        fc.oneof(fc.constantFrom('https://news.example/a?q=1', 'android-app://com.slack'), fc.webUrl(), fc.string()),
        { nil: undefined },
      ),
      scanned: fc.boolean(),
    }) as fc.Arbitrary<RawClick>;
    fc.assert(
      fc.property(fc.array(raw, { maxLength: 40 }), (clicks) => {
        const { lines, linkIds, linkIndex } = linesOf(clicks);
        const expected = clicks.map((c) => {
          const ip = canonicalClientAddress(c.ip);
          return {
            eventId: clickEventId(ids.prefix, c.clickedAt, c.sequence),
            type: 'ClickRecorded',
            schemaVersion: 1,
            occurredAt: new Date(c.clickedAt).toISOString(),
            data: {
              linkId: c.linkId,
              accountId: c.accountId,
              slug: c.slug,
              clickedAt: c.clickedAt,
              visitorHash: visitorHash(secret, ip),
              referrer: storablePrefix(
                referrerOrigin(c.referer === undefined ? undefined : headerText(c.referer)),
                512,
              ),
              country: ip === '203.0.113.77' ? 'GB' : 'XX',
              userAgent: storablePrefix(headerText(c.userAgent), 1024),
              ...(c.scanned ? { trigger: 'qr' } : {}),
            },
          };
        });
        // The very text JSON.stringify writes of the event, keys in their order: what data teams read.
        expect(lines).toEqual(expected.map((event) => JSON.stringify(event)));
        for (const line of lines) expect(clickRecorded.safeParse(JSON.parse(line)).success).toBe(true);
        expect(clicks.map((_, i) => linkIds[linkIndex[i]!])).toEqual(clicks.map((c) => c.linkId));
      }),
    );
  });

  it('counts one client as one visitor however its address was written', () => {
    const forms = ['203.0.113.77', '203.0.113.77:4711', '::ffff:203.0.113.77', '[::ffff:203.0.113.77]:80'];
    const events = eventsOf(forms.map(click)).map((e) => e.data);
    expect(new Set(events.map((e) => e.visitorHash)).size).toBe(1);
    expect(events.map((e) => e.country)).toEqual(['GB', 'GB', 'GB', 'GB']);
    const v6 = ['2001:db8::77', '2001:DB8::77', '2001:0db8:0000:0000:0000:0000:0000:0077', '[2001:db8::77]:443'];
    expect(new Set(eventsOf(v6.map(click)).map((e) => e.data.visitorHash)).size).toBe(1);
  });

  it('leaves out a click that cannot be written, and writes its neighbours as if it had never been there', () => {
    // Given a batch where some clicks hold what the capture should never let through
    const good = [click('203.0.113.77'), click('198.51.100.1'), click('203.0.113.77'), click('2001:db8::1')];
    const noAddress = { ...click('203.0.113.77'), ip: undefined as unknown as string };
    const noInstant = { ...click('198.51.100.1'), clickedAt: Number.NaN };
    const noAgent = { ...click('198.51.100.1'), userAgent: undefined as unknown as string };
    const batch = [noAddress, good[0]!, noInstant, good[1]!, good[2]!, noAgent, good[3]!];
    // When the batch is written
    const written = linesOf(batch);
    // Then each good click is the very line it is alone, in order, of its own link
    expect(written.lines).toEqual(good.map((c) => linesOf([c]).lines[0]));
    expect(Array.from(written.linkIndex, (i) => written.linkIds[i])).toEqual(good.map((c) => c.linkId));
    // And the others are counted, with why the first could not be written
    expect(written.rejected).toBe(3);
    expect(written.rejection).toBeInstanceOf(TypeError);
    expect(linesOf(good)).toMatchObject({ rejected: 0 });
    expect(linesOf(good)).not.toHaveProperty('rejection');
  });

  it('writes a user agent and a referer sent in UTF-8 as their text, not as the bytes Node read', () => {
    const latin1 = (text: string) => Buffer.from(text).toString('latin1');
    const agent = 'Mozilla/5.0 (X11; Linux x86_64) Büro/1.0';
    const [event] = eventsOf([
      { ...click('203.0.113.77'), userAgent: latin1(agent), referer: latin1('https://bücher.example/straße') },
    ]);
    expect(event?.data).toMatchObject({ userAgent: agent, referrer: 'https://xn--bcher-kva.example' });
  });

  it('never cuts a user agent or referrer inside a character, so every JSON reader takes the line', () => {
    // An emoji whose two UTF-16 halves straddle the 1,024th unit, sent in UTF-8 as browsers send it
    const agent = `Mozilla/5.0 ${'a'.repeat(1023 - 'Mozilla/5.0 '.length)}😀 tail`;
    const latin1 = (text: string) => Buffer.from(text).toString('latin1');
    const { lines } = linesOf([{ ...click('203.0.113.77'), userAgent: latin1(agent) }]);
    const line = lines[0] ?? '';
    // A lone half is written as the escape `\ud83d`, which ClickHouse's JSONEachRow, jq and
    // Python's encoders refuse; the whole line must be text of whole characters
    expect(line).not.toMatch(/\\ud8[0-9a-f]{2}/i);
    const event = JSON.parse(line) as ClickRecorded;
    expect(event.data.userAgent).toBe(agent.slice(0, 1023));
    expect(clickRecorded.safeParse(event).success).toBe(true);
  });

  it('dates each click at its own instant, in capture order or not', () => {
    const at = Date.UTC(2026, 10, 23, 23, 59, 59, 999);
    const instants = [at, at, at + 1, at + 1, at, at - 86_400_000, at + 1];
    const events = eventsOf(instants.map((clickedAt) => ({ ...click('203.0.113.77'), clickedAt })));
    expect(events.map((e) => e.occurredAt)).toEqual(instants.map((ms) => new Date(ms).toISOString()));
    expect(events.map((e) => e.data.clickedAt)).toEqual(instants);
  });
});
