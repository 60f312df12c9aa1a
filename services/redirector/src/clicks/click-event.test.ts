import { randomUUID } from 'node:crypto';
import { toClickEvent } from './click-event';
import type { RawClick } from './raw-click';

const context = {
  visitorSecret: 'a-secret-of-some-length-0123',
  countryOf: (ip: string) => (ip === '203.0.113.77' ? 'GB' : 'XX'),
};
const click = (ip: string): RawClick => ({
  eventId: randomUUID(),
  linkId: randomUUID(),
  accountId: randomUUID(),
  slug: 'abc12',
  clickedAt: Date.UTC(2026, 10, 23),
  ip,
  userAgent: 'Mozilla/5.0',
  referer: undefined,
});

describe('a click as its event', () => {
  it('counts one client as one visitor however its address was written', () => {
    const forms = ['203.0.113.77', '203.0.113.77:4711', '::ffff:203.0.113.77', '[::ffff:203.0.113.77]:80'];
    const events = forms.map((ip) => toClickEvent(click(ip), context).data);
    expect(new Set(events.map((e) => e.visitorHash)).size).toBe(1);
    expect(events.map((e) => e.country)).toEqual(['GB', 'GB', 'GB', 'GB']);
    const v6 = ['2001:db8::77', '2001:DB8::77', '2001:0db8:0000:0000:0000:0000:0000:0077', '[2001:db8::77]:443'];
    expect(new Set(v6.map((ip) => toClickEvent(click(ip), context).data.visitorHash)).size).toBe(1);
  });

  it('dates each click at its own instant, in capture order or not', () => {
    const at = Date.UTC(2026, 10, 23, 23, 59, 59, 999);
    const instants = [at, at, at + 1, at + 1, at, at - 86_400_000, at + 1];
    const events = instants.map((clickedAt) => toClickEvent({ ...click('203.0.113.77'), clickedAt }, context));
    expect(events.map((e) => e.occurredAt)).toEqual(instants.map((ms) => new Date(ms).toISOString()));
    expect(events.map((e) => e.data.clickedAt)).toEqual(instants);
  });
});
