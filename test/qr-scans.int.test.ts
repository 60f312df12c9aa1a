import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { eventually } from '@shortlink/testing';
import { PUBLIC_BASE_URL, startLinkSystem, type LinkSystem } from './support/link-system';

/**
 * A link's QR code as a phone meets it, on the whole system (Kafka, the projector, ClickHouse): the PNG the API
 * draws reads back as the short URL with its scan marker; following it redirects to the destination without the
 * marker; the scan is recorded as the click's trigger in ClickHouse and counted apart in the analytics answer,
 * beside the link's followed clicks. Another account cannot have the code.
 */
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

let system: LinkSystem;

beforeAll(async () => {
  system = await startLinkSystem();
});

afterAll(async () => {
  await system?.close();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

it('draws a code that opens the link, and counts its scans apart from the followed clicks', async () => {
  // Given a link with a query of its own
  const made = await system.app.inject({
    method: 'POST',
    url: '/api/v1/links',
    headers: { ...auth(system.proKey), 'content-type': 'application/json' },
    payload: { url: 'https://example.com/menu?lang=en', customSlug: 'qr-menu' },
  });
  expect(made.statusCode).toBe(201);

  // When its QR code is drawn as a PNG and read as a phone's camera reads it
  const code = await system.app.inject({
    method: 'GET',
    url: '/api/v1/links/qr-menu/qr?format=png',
    headers: auth(system.proKey),
  });
  expect(code.statusCode).toBe(200);
  const image = PNG.sync.read(code.rawPayload);
  const scanned = jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
  expect(scanned).toBe(`${PUBLIC_BASE_URL}/qr-menu?qr=1`);

  // And followed twice by scans (one with a query of the visitor's) and once as a link
  const follow = async (path: string, ua: string, ip: string) => {
    const res = await system.app.inject({
      method: 'GET',
      url: path,
      headers: { 'user-agent': ua, 'x-forwarded-for': ip },
    });
    expect(res.statusCode).toBe(302);
    return res.headers.location;
  };
  const path = new URL(scanned as string).pathname + new URL(scanned as string).search;
  expect(await follow(path, IPHONE, '203.0.113.10')).toBe('https://example.com/menu?lang=en');
  expect(await follow(`${path}&table=4`, IPHONE, '203.0.113.11')).toBe('https://example.com/menu?lang=en&table=4');
  expect(await follow('/qr-menu', FIREFOX, '203.0.113.12')).toBe('https://example.com/menu?lang=en');
  await system.flushClicks();

  // Then the analytics answer counts 2 scans and 1 followed click, of 3 in all
  const counted = await eventually(
    async () => {
      const res = await system.app.inject({
        method: 'GET',
        url: '/api/v1/links/qr-menu/analytics',
        headers: auth(system.proKey),
      });
      const body = res.json<{ totalClicks: number; triggers: unknown }>();
      return body.totalClicks === 3 ? body : undefined;
    },
    30_000,
    'the three clicks counted',
  );
  expect(counted.triggers).toEqual([
    { name: 'qr', count: 2 },
    { name: 'link', count: 1 },
  ]);
  // And each click's row says what started it
  const rows = await (
    await system.infra.clickhouse.query({
      query: "SELECT trigger, count() AS n FROM clicks WHERE slug = 'qr-menu' GROUP BY trigger ORDER BY trigger",
      format: 'JSONEachRow',
    })
  ).json<{ trigger: string; n: string }>();
  expect(rows.map((r) => [r.trigger, Number(r.n)])).toEqual([
    ['link', 1],
    ['qr', 2],
  ]);

  // And another account's key gets no code of it
  const other = await system.app.inject({
    method: 'GET',
    url: '/api/v1/links/qr-menu/qr',
    headers: auth(system.freeKey),
  });
  expect(other.statusCode).toBe(404);
});
