import type { FastifyRequest } from 'fastify';
import type { ResolvedLink } from '../resolved-link';
import { createClickRecorder } from './click-recorder';
import type { ClickSink } from './click-sink';
import type { RawClick } from './raw-click';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const link: ResolvedLink = { slug: 'launch', location: 'https://example.com/', linkId: 'l-1', accountId: 'a-1' };

function recorder() {
  const taken: RawClick[] = [];
  const sink = { push: (click: RawClick) => void taken.push(click) } as unknown as ClickSink;
  let sequence = 0;
  return { taken, onRedirect: createClickRecorder({ sink, nextSequence: () => ++sequence, now: () => 1_000 }) };
}

/** A GET as fastify hands it over after the redirect was answered; `ip` is what Node knew of the socket. */
const request = (ip: string | undefined, socketDestroyed = false, url = '/launch') =>
  ({
    method: 'GET',
    url,
    headers: { 'user-agent': FIREFOX, referer: 'https://news.example/a' },
    ip,
    raw: { socket: { destroyed: socketDestroyed } },
  }) as unknown as FastifyRequest;

describe('the click recorder', () => {
  it('takes a person’s redirect with its facts', () => {
    const { taken, onRedirect } = recorder();
    onRedirect(request('203.0.113.7'), link, false);
    expect(taken).toEqual([
      {
        sequence: 1,
        linkId: 'l-1',
        accountId: 'a-1',
        slug: 'launch',
        clickedAt: 1_000,
        ip: '203.0.113.7',
        userAgent: FIREFOX,
        referer: 'https://news.example/a',
        scanned: false,
        rule: -1,
        variant: -1,
      },
    ]);
  });

  it('records the rule or the variant that chose the destination', () => {
    const { taken, onRedirect } = recorder();
    onRedirect(request('203.0.113.7'), link, false, { location: 'https://e.x/r', matched: 'rule', index: 3 });
    onRedirect(request('203.0.113.7'), link, false, { location: 'https://e.x/v', matched: 'variant', index: 1 });
    expect(taken.map(({ rule, variant }) => [rule, variant])).toEqual([
      [3, -1],
      [-1, 1],
    ]);
  });

  it("records a scan of the link's QR code as the redirect told it", () => {
    const { taken, onRedirect } = recorder();
    onRedirect(request('203.0.113.7', false, '/launch?qr=1'), link, true);
    onRedirect(request('203.0.113.7', false, '/launch'), link, false);
    expect(taken.map((click) => click.scanned)).toEqual([true, false]);
  });

  it('takes no click from a visitor whose connection closed while the link was looked up', () => {
    // Node does not know the address of a socket that is gone; the redirect never reached anyone.
    const { taken, onRedirect } = recorder();
    onRedirect(request(undefined, true), link, false);
    onRedirect(request('203.0.113.7', true), link, false);
    onRedirect(request(undefined), link, false);
    onRedirect(request(''), link, false);
    expect(taken).toEqual([]);
  });
});
