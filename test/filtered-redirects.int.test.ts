import { randomUUID } from 'node:crypto';
import { eventually } from '@shortlink/testing';
import { appendEvents } from '@shortlink/event-log';
import { createEvent, redirectsFiltered, type RedirectsFiltered } from '@shortlink/events';
import { startLinkSystem, type LinkSystem } from './support/link-system';

/**
 * Redirects that are not clicks, on the whole system (the redirector's tally, Kafka, the projector, ClickHouse, the
 * analytics API): two accounts side by side, each link sent HEADs, curl, crawlers, a prefetch, a request without a
 * user agent and browsers. Each account's `filtered` object holds exactly its own counts, its clicks only the
 * browsers'; hits on unknown slugs are counted per day and in the metric; a redelivered flush counts once.
 */
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';
const CURL = 'curl/8.5.0';

let system: LinkSystem;

beforeAll(async () => {
  system = await startLinkSystem();
});

afterAll(async () => {
  await system?.close();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

interface Analytics {
  totalClicks: number;
  browsers: { name: string; count: number }[];
  filtered: { total: number; reasons: { name: string; count: number }[]; crawlers: { name: string; count: number }[] };
}

/** What one account's link is sent: how many of each. */
interface Traffic {
  head: number;
  curl: number;
  googlebot: number;
  slackbot: number;
  prefetch: number;
  noUserAgent: number;
  browsers: number;
}

async function send(slug: string, traffic: Traffic) {
  const requests: { method: 'GET' | 'HEAD'; headers: Record<string, string> }[] = [
    ...Array.from({ length: traffic.head }, () => ({ method: 'HEAD' as const, headers: { 'user-agent': FIREFOX } })),
    ...Array.from({ length: traffic.curl }, () => ({ method: 'GET' as const, headers: { 'user-agent': CURL } })),
    ...Array.from({ length: traffic.googlebot }, () => ({
      method: 'GET' as const,
      headers: { 'user-agent': GOOGLEBOT },
    })),
    ...Array.from({ length: traffic.slackbot }, () => ({
      method: 'GET' as const,
      headers: { 'user-agent': SLACKBOT },
    })),
    ...Array.from({ length: traffic.prefetch }, () => ({
      method: 'GET' as const,
      headers: { 'user-agent': CHROME, 'sec-purpose': 'prefetch' },
    })),
    // inject sends a user agent of its own unless told one: an empty header is none.
    ...Array.from({ length: traffic.noUserAgent }, () => ({ method: 'GET' as const, headers: { 'user-agent': '' } })),
    ...Array.from({ length: traffic.browsers }, () => ({ method: 'GET' as const, headers: { 'user-agent': CHROME } })),
  ];
  // All at once, as the world sends them.
  const answers = await Promise.all(
    requests.map((r, i) =>
      system.app.inject({
        method: r.method,
        url: `/${slug}`,
        headers: { ...r.headers, 'x-forwarded-for': `203.0.113.${(i % 200) + 1}` },
      }),
    ),
  );
  expect(answers.map((a) => a.statusCode)).toEqual(requests.map(() => 302));
}

const expected = (t: Traffic, extraHead = 0): Analytics['filtered'] => {
  const reasons = [
    { name: 'crawler', count: t.googlebot + t.slackbot },
    { name: 'head', count: t.head + extraHead },
    { name: 'http_library', count: t.curl },
    { name: 'no_user_agent', count: t.noUserAgent },
    { name: 'prefetch', count: t.prefetch },
  ].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  const crawlers = [
    { name: 'googlebot', count: t.googlebot },
    { name: 'slackbot', count: t.slackbot },
  ].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return { total: reasons.reduce((n, r) => n + r.count, 0), reasons, crawlers };
};

async function analyticsOf(slug: string, key: string): Promise<Analytics> {
  const res = await system.app.inject({ method: 'GET', url: `/api/v1/links/${slug}/analytics`, headers: auth(key) });
  expect(res.statusCode).toBe(200);
  return res.json<Analytics>();
}

async function linkOf(slug: string): Promise<{ linkId: string; accountId: string }> {
  const { rows } = await system.infra.pool.query<{ link_id: string; account_id: string }>(
    'SELECT link_id, account_id FROM links WHERE slug = $1',
    [slug],
  );
  return { linkId: rows[0]!.link_id, accountId: rows[0]!.account_id };
}

it('counts each account’s filtered redirects apart, by reason and crawler family, and never as clicks', async () => {
  // Given a link of each of two accounts
  for (const [key, slug] of [
    [system.proKey, 'filtered-pro'],
    [system.freeKey, 'filtered-free'],
  ] as const) {
    const made = await system.app.inject({
      method: 'POST',
      url: '/api/v1/links',
      headers: { ...auth(key), 'content-type': 'application/json' },
      payload: { url: 'https://example.com/landing', customSlug: slug },
    });
    expect(made.statusCode).toBe(201);
  }
  const pro: Traffic = { head: 2, curl: 3, googlebot: 4, slackbot: 1, prefetch: 2, noUserAgent: 1, browsers: 3 };
  const free: Traffic = { head: 1, curl: 1, googlebot: 1, slackbot: 5, prefetch: 0, noUserAgent: 3, browsers: 2 };

  // When each is sent its traffic, side by side, and paths that are no link are asked for
  await Promise.all([send('filtered-pro', pro), send('filtered-free', free)]);
  const unknown = await Promise.all(
    ['/no-such-link', '/no-such-link', '/%3Cscript%3Ealert(1)%3C%2Fscript%3E', `/${'x'.repeat(300)}`].map((url) =>
      system.app.inject({ method: 'GET', url, headers: { 'user-agent': CHROME } }),
    ),
  );
  expect(unknown.map((r) => r.statusCode)).toEqual([404, 404, 404, 404]);

  // And one flush of the pro account's counts is delivered twice (a producer's retry), with no merge to hide the
  // copy: the insert's deduplication, and the reads' FINAL beyond its window, keep it from counting twice
  await system.infra.clickhouse.command({ query: 'SYSTEM STOP MERGES redirects_filtered' });
  const proLink = await linkOf('filtered-pro');
  const today = new Date().toISOString().slice(0, 10);
  const again = redirectsFiltered.parse(
    createEvent<RedirectsFiltered>(
      'RedirectsFiltered',
      1,
      { counts: [{ ...proLink, day: today, reason: 'head', count: 5 }], unknownSlugs: [] },
      { eventId: randomUUID(), occurredAt: new Date().toISOString() },
    ),
  );
  const producer = system.infra.log.producer();
  await producer.connect();
  await appendEvents(producer, system.infra.names.topics.redirectsFiltered, [again], (e) => e.eventId);
  // Then a marker: the topic has one partition, so once the marker is in ClickHouse both copies were projected.
  const marker = redirectsFiltered.parse(
    createEvent<RedirectsFiltered>(
      'RedirectsFiltered',
      1,
      { counts: [], unknownSlugs: [{ day: '2000-01-01', count: 1 }] },
      { eventId: randomUUID(), occurredAt: new Date().toISOString() },
    ),
  );
  await appendEvents(producer, system.infra.names.topics.redirectsFiltered, [again, marker], (e) => e.eventId);
  await producer.disconnect();
  await system.flushClicks();

  // Then each account's analytics hold exactly its own filtered counts, the redelivered flush once
  await eventually(
    async () => {
      const rows = await (
        await system.infra.clickhouse.query({
          query: "SELECT count() AS n FROM unknown_slug_hits WHERE day = '2000-01-01'",
          format: 'JSONEachRow',
        })
      ).json<{ n: string }>();
      return Number(rows[0]?.n) > 0 ? true : undefined;
    },
    30_000,
    'the marker projected',
  );
  const want = { pro: expected(pro, 5), free: expected(free) };
  const answers = await eventually(
    async () => {
      const [p, f] = [
        await analyticsOf('filtered-pro', system.proKey),
        await analyticsOf('filtered-free', system.freeKey),
      ];
      const done =
        p.totalClicks === pro.browsers &&
        f.totalClicks === free.browsers &&
        p.filtered.total === want.pro.total &&
        f.filtered.total === want.free.total;
      return done ? { p, f } : undefined;
    },
    30_000,
    'the clicks and the filtered redirects of both accounts counted',
  );
  expect(answers.p.filtered).toEqual(want.pro);
  expect(answers.f.filtered).toEqual(want.free);
  // And only the browsers are clicks
  expect(answers.p.browsers).toEqual([{ name: 'Chrome', count: pro.browsers }]);
  expect(answers.f.browsers).toEqual([{ name: 'Chrome', count: free.browsers }]);
  const clicks = await (
    await system.infra.clickhouse.query({
      query: `SELECT slug, count() AS n, countIf(browser != 'Chrome') AS others
                FROM clicks GROUP BY slug ORDER BY slug`,
      format: 'JSONEachRow',
    })
  ).json<{ slug: string; n: string; others: string }>();
  expect(clicks.map((r) => [r.slug, Number(r.n), Number(r.others)])).toEqual([
    ['filtered-free', free.browsers, 0],
    ['filtered-pro', pro.browsers, 0],
  ]);

  // And the table holds each account's rows under its own account, nothing else of the requests
  const rows = await (
    await system.infra.clickhouse.query({
      query: `SELECT account_id, link_id, sum(count) AS n FROM redirects_filtered FINAL
               GROUP BY account_id, link_id ORDER BY n`,
      format: 'JSONEachRow',
    })
  ).json<{ account_id: string; link_id: string; n: string }>();
  const freeLink = await linkOf('filtered-free');
  expect(rows.map((r) => [r.account_id, r.link_id, Number(r.n)]).sort()).toEqual(
    [
      [proLink.accountId, proLink.linkId, want.pro.total],
      [freeLink.accountId, freeLink.linkId, want.free.total],
    ].sort(),
  );

  // And the unknown slugs are counted for the day, in the table and the metric, without the slugs
  const hits = await eventually(
    async () => {
      const [row] = await (
        await system.infra.clickhouse.query({
          query: `SELECT toString(day) AS day, sum(hits) AS n FROM unknown_slug_hits FINAL
                   WHERE day != '2000-01-01' GROUP BY day`,
          format: 'JSONEachRow',
        })
      ).json<{ day: string; n: string }>();
      return row && Number(row.n) === 4 ? row : undefined;
    },
    30_000,
    'the unknown slugs counted',
  );
  expect(hits.day).toBe(today);
  const metrics = await system.app.inject({ method: 'GET', url: '/metrics' });
  expect(metrics.body).toContain('shortlink_unknown_slug_hits_total 4\n');
});

it('answers hostile parameters with a 4xx, and another account’s link as not found', async () => {
  const hostile = [
    '/api/v1/links/filtered-pro/analytics?range=%3Cscript%3E',
    '/api/v1/links/filtered-pro/analytics?range=7d&range=30d',
    '/api/v1/links/filtered-pro/analytics?range=%00',
    `/api/v1/links/${'a'.repeat(100)}/analytics`,
    '/api/v1/links/%3Cscript%3E/analytics',
    // The other account's link: its filtered counts are not this key's to read.
    '/api/v1/links/filtered-free/analytics',
  ];
  for (const url of hostile) {
    const res = await system.app.inject({ method: 'GET', url, headers: auth(system.proKey) });
    expect({ url, status: res.statusCode }).toEqual({ url, status: expect.any(Number) });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json<{ error: string }>().error).toEqual(expect.any(String));
    expect(res.body).not.toMatch(/filtered-free.*crawler|"filtered"/);
  }
});
