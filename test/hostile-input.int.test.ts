import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { hashApiKey } from '@shortlink/accounts';
import { eventually } from '@shortlink/testing';
import { createKeyWithCli } from './support/cli';
import {
  ACCOUNTS,
  analyticsCase,
  anyCase,
  bulkCase,
  cleanTag,
  cleanUrl,
  createCase,
  deleteCase,
  domainCase,
  healthCase,
  listCase,
  readCase,
  redirectCase,
  unusedSlug,
  updateCase,
  REFUSED_WEBHOOK_URLS,
  webhookCase,
  type Account,
  type Endpoint,
  type HostileCase,
  type HostileWorld,
} from './support/hostile-arbitraries';
import { openTestInfra, startServersProcess, type TestInfra } from './support/link-system';
import { type RunningProcess } from './support/processes';
import { encodeRequest, exchange, type RawRequest, type RawResponse } from './support/raw-http';

/**
 * Hostile input at volume (fast-check) against the real `npm start` process over raw TCP, for every endpoint. For every
 * request: no 5xx; every 4xx is `{"error", "code"}` JSON (with `detail` and `field`, short and escaped); a 302 only to
 * a stored slug's stored destination; a 200 or 201 only for the key's own account; a request hostile only where it
 * must not matter gets what a plain one gets.
 * After: every stored link was answered 201, the service is healthy, no click worker died; idle connections, a 100 KB
 * header and a burst of 2,000 requests stop nothing. HOSTILE_RUNS sets the requests (default 1,200; `npm run
 * test:hostile` 10,000); HOSTILE_SEED replays a failing run.
 */
const RUNS = Number(process.env.HOSTILE_RUNS ?? 1200);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`HOSTILE_RUNS must be a positive integer, not ${RUNS}`);
const SEED = process.env.HOSTILE_SEED === undefined ? undefined : Number(process.env.HOSTILE_SEED);
const BURST = 2000;
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const PUBLIC_BASE_URL = 'https://sho.rt';
/** A request that is answered later than this is a hang. */
const ANSWER_WITHIN_MS = 20_000;

const SHARES: Record<Endpoint, number> = {
  create: 0.22,
  bulk: 0.05,
  read: 0.1,
  update: 0.08,
  delete: 0.03,
  list: 0.05,
  analytics: 0.1,
  redirect: 0.18,
  any: 0.11,
  health: 0.04,
  webhook: 0.08,
  domain: 0.05,
};
const runsOf = (endpoint: Endpoint): number => Math.max(1, Math.round(RUNS * SHARES[endpoint]));

let infra: TestInfra;
let server: RunningProcess;
let port: number;
const world: HostileWorld & {
  slugs: Record<Account, string[]>;
  webhooks: Record<Account, string[]>;
  domains: Record<Account, string[]>;
} = {
  keys: { pro: '', free: '' },
  slugs: { pro: [], free: [] },
  webhooks: { pro: [], free: [] },
  domains: { pro: [], free: [] },
};
type ModelLink = { owner: Account; destinationUrl: string };
/** Every live link the service answered 201 for, by slug, as changed since: the model the properties are checked against. */
const links = new Map<string, ModelLink>();
/** Links the service answered 204 for a DELETE of: gone, and their slugs never given out again. */
const deleted = new Map<string, ModelLink>();
const tally = new Map<string, number>();
let sent = 0;
const started = Date.now();

beforeAll(async () => {
  infra = await openTestInfra();
  server = await startServersProcess(infra, {
    PUBLIC_BASE_URL,
    // Behind a proxy, as in production: X-Forwarded-For garbage reaches the click path.
    TRUST_PROXY: 'true',
    // A declared body never sent (`Content-Length: 1`, no bytes) is answered 408 once this runs out:
    // below ANSWER_WITHIN_MS, so such a request is judged by its answer, not taken for a hang. Not
    // much lower: every request of the burst of 2,000 must arrive whole within it too.
    HTTP_REQUEST_TIMEOUT_MS: '10000',
    // Thousands of requests a minute on two keys: each is still counted, under limits they never
    // reach, so every answer is the one its input deserves (the limits have tests of their own).
    RATE_LIMIT_FREE_PER_MINUTE: '1000000',
    RATE_LIMIT_PRO_PER_MINUTE: '1000000',
    // No DNS server answers here: a domain's verify is a fast 503, never a lookup on the machine's resolvers.
    DNS_SERVERS: '127.0.0.1:1',
    ...(process.env.HOSTILE_LOG_LEVEL ? { LOG_LEVEL: process.env.HOSTILE_LOG_LEVEL } : {}),
  });
  port = Number(new URL(server.url).port);
  const [pro, free] = await Promise.all(ACCOUNTS.map((plan) => createKeyWithCli({ DATABASE_URL: infra.db.url }, plan)));
  world.keys = { pro: pro as string, free: free as string };
  // A few links of each account, so that reads and redirects meet existing slugs from the first run on.
  for (const owner of ACCOUNTS) {
    for (const [url, i] of [
      ['https://example.com/seed', 0],
      ['https://exämple.com/ü?q=a b#frag', 1],
      ['https://example.com\\@evil.example/', 2],
    ] as const) {
      const responses = await send(plainCreate(owner, { url, customSlug: `zq-seed-${owner}-${i}` }));
      expect(responses[0]?.status).toBe(201);
    }
  }
}, 120_000);

afterAll(async () => {
  console.log(
    `[hostile] ${sent} requests in ${((Date.now() - started) / 1000).toFixed(1)} s (HOSTILE_RUNS=${RUNS}); ` +
      `statuses: ${[...tally].map(([k, n]) => `${k}×${n}`).join(' ')}`,
  );
  if (server) {
    const stopping = Date.now();
    const exitCode = await server.stop();
    console.log(`[hostile] the process stopped in ${Date.now() - stopping} ms with code ${exitCode}`);
    if (process.env.HOSTILE_LOG_LEVEL) console.log(server.output());
    // Within its 10 s grace, whatever the run left behind (the generated destinations' lookups, the preview
    // worker's idle fetch).
    expect(exitCode).toBe(0);
  }
  await infra?.close();
});

// ---------------------------------------------------------------- sending and checking

const KNOWN_STATUSES = new Set([200, 201, 202, 204, 302, 400, 401, 403, 404, 405, 408, 409, 413, 415, 417, 431]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function show(request: RawRequest): string {
  const cut = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length})` : s);
  const body =
    request.body === undefined
      ? ''
      : typeof request.body === 'string'
        ? JSON.stringify(cut(request.body, 300))
        : `bytes ${Buffer.from(request.body).subarray(0, 60).toString('hex')}`;
  return [
    `${JSON.stringify(request.method)} ${JSON.stringify(cut(request.target))} framing=${request.framing ?? 'content-length'}`,
    ...request.headers.map(([n, v]) => `  ${JSON.stringify(cut(n, 40))}: ${JSON.stringify(cut(v, 80))}`),
    `  body ${body}`,
  ].join('\n');
}

/** The path of a request target as the router sees it: absolute form and fragment dropped, one trailing slash ignored. */
function routedPath(target: string): string {
  const path = target.replace(/^https?:\/\/[^/]*/i, '').split(/[?#]/)[0] ?? '';
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

const decoded = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
};

/** The slug a redirect path names, decoded as the router decodes it. */
const redirectSlug = (target: string): string | undefined => {
  const match = /^\/([^/]+)$/.exec(routedPath(target));
  return match ? decoded(match[1] as string) : undefined;
};

/** The slug and route of an API read path. */
const apiSlug = (target: string): { slug?: string; analytics: boolean } | undefined => {
  const match = /^\/api\/v1\/links\/([^/]+)(\/analytics)?$/.exec(routedPath(target));
  return match ? { slug: decoded(match[1] as string), analytics: match[2] !== undefined } : undefined;
};

/** What the body decodes to on the server, if it is JSON at all (a leading byte order mark is skipped, as RFC 8259 allows). */
function parsedBody(request: RawRequest): unknown {
  if (request.body === undefined) return undefined;
  try {
    return JSON.parse(
      Buffer.from(request.body)
        .toString('utf8')
        .replace(/^\ufeff/, ''),
    ) as unknown;
  } catch {
    return undefined;
  }
}

/** The destination the redirector may serve for a slug: the projection's, or the committed claim's. */
async function storedDestination(slug: string): Promise<string | undefined> {
  const { rows } = await infra.pool.query<{ destination_url: string }>(
    `SELECT destination_url FROM links WHERE slug = $1
     UNION ALL SELECT destination_url FROM slug_claims WHERE slug = $1 AND state = 'committed' LIMIT 1`,
    [slug],
  );
  return rows[0]?.destination_url;
}

/** The webhooks the service answered 201 for, by id, with their owner: the model webhook answers are checked against. */
const webhooks = new Map<string, Account>();
/** Hosts no webhook may name: loopback, private, link-local, metadata, this service (literals and names as sent). */
const REFUSED_WEBHOOK_HOST =
  /^(localhost|.*\.localhost|127\.|10\.|192\.168\.|169\.254\.|100\.6[4-9]\.|0\.|\[::1\]|\[::ffff:|\[f[cd]|sho\.rt$)/i;

/** A URL a webhook was created or changed with: https, public, no credentials, as the rules say. */
function checkWebhookUrl(url: unknown, fail: (what: string) => never): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(String(url));
  } catch {
    fail(`a webhook with ${JSON.stringify(url)}, which is no URL`);
  }
  if (parsed?.protocol !== 'https:') fail(`a webhook taking ${parsed?.protocol ?? '?'} URLs`);
  if (parsed?.username || parsed?.password) fail('a webhook with credentials in its URL');
  if (REFUSED_WEBHOOK_HOST.test(parsed?.hostname ?? '')) fail(`a webhook at ${parsed?.hostname ?? '?'}`);
}

/**
 * A webhook route's answer: a webhook is created only with a key and an acceptable URL, shown (with its
 * secret) only at its creation, and read, changed, tested, replayed or deleted only by its own account.
 */
function checkWebhookAnswer(c: HostileCase, r: RawResponse, path: string, fail: (what: string) => never): void {
  if (r.status >= 400) return;
  if (c.account === null) fail('a webhook route answered without a key');
  const account = c.account;
  const body =
    c.request.method === 'HEAD' || r.status === 204 ? undefined : (JSON.parse(r.body) as Record<string, unknown>);
  const idOf = decoded(/^\/api\/v1\/webhooks\/([^/]+)/.exec(path)?.[1] ?? '');
  if (r.status === 201) {
    if (c.request.method !== 'POST' || path !== '/api/v1/webhooks') fail('a 201 that is no webhook creation');
    checkWebhookUrl(body?.url, fail);
    if (typeof body?.secret !== 'string' || !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(body.secret))
      fail('a webhook created without its whsec_ secret');
    webhooks.set(String(body?.id), account);
    world.webhooks[account].push(String(body?.id));
    return;
  }
  if (path === '/api/v1/webhooks') {
    for (const listed of (body?.webhooks as { id: string }[] | undefined) ?? []) {
      if (webhooks.get(listed.id) !== account) fail(`a webhook not of ${account} in its list`);
      if ('secret' in listed) fail('a secret shown in a list');
    }
    return;
  }
  if (idOf === undefined || webhooks.get(idOf) !== account) fail(`another account's webhook answered ${r.status}`);
  if (body && path.endsWith('/rotate-secret') === false && 'secret' in body) fail('a secret shown after its creation');
  if (c.request.method === 'PATCH' && body) checkWebhookUrl(body.url, fail);
  if (r.status === 204) {
    if (c.request.method !== 'DELETE') fail('a 204 that is no webhook deletion');
    webhooks.delete(idOf);
  }
}

/** The domains the service answered 201 for, as `account hostname`: two accounts may claim one until one verifies it. */
const domains = new Set<string>();
/** A stored hostname: lower-case ASCII labels, no trailing dot or port, no IP address (its last label starts with a letter). */
const STORED_HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A domain route's answer: a domain is added only with a key and an acceptable hostname, read, changed or deleted
 * only by its own account, and never verified here (no DNS server answers: a verify is a 503 at best).
 */
function checkDomainAnswer(c: HostileCase, r: RawResponse, path: string, fail: (what: string) => never): void {
  if (r.status === 503) {
    if (c.request.method !== 'POST' || !path.endsWith('/verify')) fail('a 503 from a domain route that asks no DNS');
    if (!/"code":"dns_unavailable"/.test(r.body) || !r.headers['retry-after']) fail('a 503 not dns_unavailable');
    return;
  }
  if (r.status >= 400) return;
  if (c.account === null) fail('a domain route answered without a key');
  const account = c.account;
  const body =
    c.request.method === 'HEAD' || r.status === 204 ? undefined : (JSON.parse(r.body) as Record<string, unknown>);
  if (r.status === 201) {
    if (c.request.method !== 'POST' || path !== '/api/v1/domains') fail('a 201 that is no domain added');
    const hostname = String(body?.hostname);
    if (!STORED_HOSTNAME.test(hostname) || hostname === 'sho.rt') fail(`a domain added as ${hostname}`);
    if (body?.status !== 'pending') fail('a domain added already verified');
    if (domains.has(`${account} ${hostname}`)) fail(`a domain added twice: ${hostname}`);
    domains.add(`${account} ${hostname}`);
    world.domains[account].push(hostname);
    return;
  }
  if (path === '/api/v1/domains') {
    for (const listed of (body?.domains as { hostname: string }[] | undefined) ?? []) {
      if (!domains.has(`${account} ${listed.hostname}`)) fail(`a domain not of ${account} in its list`);
    }
    return;
  }
  if (path.endsWith('/verify')) fail(`a domain verified with no DNS server to ask (${r.status})`);
  const hostname = typeof body?.hostname === 'string' ? body.hostname : decoded(path.split('/')[4] ?? '');
  if (hostname === undefined || !domains.has(`${account} ${hostname.toLowerCase()}`))
    fail(`another account's domain answered ${r.status}`);
  if (r.status === 204) {
    if (c.request.method !== 'DELETE') fail('a 204 that is no domain deletion');
    domains.delete(`${account} ${hostname.toLowerCase()}`);
  }
}

/** A slug no create may have: a live link's, or a deleted one's (never given out again). */
const taken = (slug: string) => links.has(slug) || deleted.has(slug);

const PLAN_RANGES: Record<Account, readonly string[]> = { pro: ['7d', '30d', '90d', 'all'], free: ['7d', '30d'] };

/** The status a clean case must get (one of several when the model cannot tell). */
/**
 * The plan is checked before the claim: a free account asking for a slug of
 * fewer than 4 characters is refused 403 even when it names an existing
 * link's slug (a Pro account's, which a plain create may reuse to meet a 409).
 */
const planRefuses = (account: Account, slug: unknown): boolean =>
  account === 'free' && typeof slug === 'string' && slug.length < 4;

function expectedStatuses(c: HostileCase): number[] | undefined {
  if (!c.clean || c.endpoint === 'any') return undefined;
  if (c.endpoint === 'health') return [200];
  // `docs` is a reserved slug: the API's reference page answers there.
  if (c.endpoint === 'redirect')
    return [c.slug === 'docs' ? 200 : c.slug !== undefined && links.has(c.slug) ? 302 : 404];
  if (!c.authenticates || c.account === null) return [401];
  const owned = c.slug !== undefined && links.get(c.slug)?.owner === c.account;
  if (c.endpoint === 'read') return [owned ? 200 : 404];
  if (c.endpoint === 'update') return [owned ? 200 : 404];
  if (c.endpoint === 'delete') return [owned ? 204 : 404];
  if (c.endpoint === 'bulk') return [200];
  if (c.endpoint === 'analytics') {
    if (!PLAN_RANGES[c.account].includes(c.range ?? '7d')) return [403];
    return [owned ? 200 : 404];
  }
  if (c.endpoint === 'create') {
    const slug = (parsedBody(c.request) as { customSlug?: string } | undefined)?.customSlug;
    if (slug === undefined) return [201];
    if (planRefuses(c.account, slug)) return [403];
    return [taken(slug) ? 409 : 201];
  }
  return undefined;
}

/** Checks a Link answered 201 (alone or in a bulk result) against what was sent, and adds it to the model. */
function created(link: Record<string, unknown>, sent: unknown, owner: Account, fail: (what: string) => never): void {
  const sentBody = sent as Record<string, unknown> | undefined;
  const slug = link.slug as string;
  if (typeof slug !== 'string' || !/^[a-z0-9-]{3,30}$/.test(slug)) fail('a created slug of the wrong shape');
  if (!UUID.test(String(link.id)) || link.shortUrl !== `${PUBLIC_BASE_URL}/${slug}`) fail('a Link of the wrong shape');
  if (link.destinationUrl !== sentBody?.url) fail('a created destination that is not the one sent');
  if (typeof sentBody?.customSlug === 'string' && slug !== sentBody.customSlug) fail('not the custom slug sent');
  if (link.tag !== (sentBody?.tag ?? null)) fail('a created tag that is not the one sent');
  if (taken(slug)) fail(deleted.has(slug) ? 'a deleted slug given out again' : 'a slug created twice');
  links.set(slug, { owner, destinationUrl: link.destinationUrl as string });
  world.slugs[owner].push(slug);
}

/**
 * Checks one exchange against every property; throws a readable violation.
 * Under overload a JSON 503 is an answer too.
 */
async function check(c: HostileCase, responses: RawResponse[], overload = false): Promise<void> {
  const fail = (what: string, r?: RawResponse): never => {
    throw new Error(
      `${what}\n${show(c.request)}\n← ${r ? `${r.status} ${JSON.stringify(r.headers)} ${r.body.slice(0, 300)}` : ''}`,
    );
  };
  // Before this answer changes the model (a 201 adds its link).
  const expected = expectedStatuses(c);
  const [first, ...leftovers] = responses;
  if (!first) return fail('no response');
  for (const [i, r] of responses.entries()) {
    const tallyKey = `${c.endpoint}:${r.status}`;
    tally.set(tallyKey, (tally.get(tallyKey) ?? 0) + 1);
    const dnsDown = c.endpoint === 'domain' && r.status === 503; // judged by checkDomainAnswer
    if (r.status >= 500 && !(overload && r.status === 503) && !dnsDown) fail('a 5xx', r);
    if (!KNOWN_STATUSES.has(r.status) && r.status < 500) fail(`an unexpected status ${r.status}`, r);
    if (i > 0 && r.status < 400) fail('a second request smuggled in the first one was served', r);
    if (r.status >= 400) {
      if (!/^application\/json\b/i.test(r.headers['content-type'] ?? '')) fail('an error that is not JSON', r);
      const head = i === 0 && c.request.method === 'HEAD';
      if (!head) {
        let body: unknown;
        try {
          body = JSON.parse(r.body);
        } catch {
          fail('an error body that does not parse', r);
        }
        const shape = body as Record<string, unknown>;
        if (typeof shape !== 'object' || shape === null || Array.isArray(shape))
          fail('an error body that is no object', r);
        if (typeof shape.error !== 'string' || shape.error === '') fail('an error body without an error text', r);
        if (typeof shape.code !== 'string' || !/^[a-z_]+$/.test(shape.code)) fail('an error body without a code', r);
        if (typeof shape.detail !== 'string' || shape.detail === '') fail('an error body without a detail', r);
        const extra = Object.keys(shape).filter((k) => !['error', 'code', 'detail', 'field'].includes(k));
        if (extra.length > 0)
          fail(`an error body with more than error, code, detail and field: ${extra.join(', ')}`, r);
        // A detail echoes at most a short, escaped excerpt of the request: one sentence, no raw control character.
        for (const key of ['detail', 'field'] as const) {
          const text = shape[key];
          if (text === undefined) continue;
          if (typeof text !== 'string' || text.length > 400) fail(`an error ${key} that is no short text`, r);
          // eslint-disable-next-line no-control-regex -- control characters are what must not be echoed
          if (/[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u.test(text as string))
            fail(`an error ${key} echoing a control character`, r);
        }
      }
    }
  }
  void leftovers;
  const r = first;
  const path = routedPath(c.request.target);
  if (path === '/api/v1/webhooks' || path.startsWith('/api/v1/webhooks/')) {
    checkWebhookAnswer(c, r, path, (what) => fail(what, r));
    return;
  }
  if (path === '/api/v1/domains' || path.startsWith('/api/v1/domains/')) {
    checkDomainAnswer(c, r, path, (what) => fail(what, r));
    return;
  }

  if (r.status === 302) {
    if (c.request.method !== 'GET' && c.request.method !== 'HEAD')
      fail('a redirect for a method other than GET or HEAD', r);
    const slug = redirectSlug(c.request.target);
    if (slug === undefined) fail('a redirect for a path that names no slug', r);
    // The model first: a change is redirected at once, before the projection has it.
    const stored = links.get(slug as string)?.destinationUrl ?? (await storedDestination(slug as string));
    if (stored === undefined) fail(`a redirect for ${JSON.stringify(slug)}, which is not stored`, r);
    // The query is passed on, else the destination exactly (docs/decisions/0056-redirect-query-pass-through.md).
    const location = r.headers.location ?? '';
    const want = new URL(stored as string);
    let got: URL | undefined;
    try {
      got = new URL(location);
    } catch {
      fail(`a redirect to ${JSON.stringify(location)}, which is no URL`, r);
    }
    const query = /\?([^#]*)/.exec(c.request.target)?.[1] ?? '';
    if (query.replaceAll('&', '') === '' ? location !== want.href : got?.href !== location)
      fail(`a redirect not to the stored ${stored}`, r);
    if (got?.origin !== want.origin || got.pathname !== want.pathname || got.hash !== want.hash)
      fail(`a redirect not to the stored ${stored} (with the request's query)`, r);
  }

  if (r.status === 201) {
    if (c.request.method !== 'POST' || path !== '/api/v1/links') fail('a 201 that is no link creation', r);
    if (c.account === null) fail('a link created without a key', r);
    created(JSON.parse(r.body) as Record<string, unknown>, parsedBody(c.request), c.account as Account, (what) =>
      fail(what, r),
    );
  }

  if (r.status === 200 && c.request.method === 'POST' && path === '/api/v1/links/bulk') {
    if (c.account === null) fail('a bulk create answered without a key', r);
    const { results } = JSON.parse(r.body) as { results: Array<Record<string, unknown>> };
    const items = (parsedBody(c.request) as { links?: unknown[] } | undefined)?.links;
    if (!Array.isArray(results) || !Array.isArray(items) || results.length !== items.length)
      fail('a bulk answer without one result per link', r);
    const slugsBefore = new Set(results.length > 0 ? [...links.keys(), ...deleted.keys()] : []);
    const claimedHere = new Set<string>();
    for (const [i, result] of results.entries()) {
      const item = items?.[i] as Record<string, unknown> | undefined;
      const at = (what: string) => fail(`bulk item ${i}: ${what}`, r);
      if (c.clean) {
        if (planRefuses(c.account as Account, item?.customSlug)) {
          if (result.status !== 403) at('a short slug of a free account not refused 403');
        } else if (result.status !== 201 && result.status !== 409) at('a plain link refused');
      }
      if (result.status === 201) {
        const link = result.link as Record<string, unknown>;
        created(link, item, c.account as Account, at);
        claimedHere.add(link.slug as string);
      } else {
        if (typeof result.status !== 'number' || result.status < 400 || result.status >= 500)
          at(`a result of status ${String(result.status)}`);
        if (typeof result.error !== 'string' || typeof result.code !== 'string') at('a refusal without error and code');
        const slug = item?.customSlug;
        if (result.status === 409 && !(typeof slug === 'string' && (slugsBefore.has(slug) || claimedHere.has(slug))))
          at('a 409 for a slug that was free');
      }
    }
  }

  if (r.status === 200 && c.request.method === 'PATCH') {
    const api = apiSlug(c.request.target);
    if (!api || api.analytics || api.slug === undefined) fail('a 200 for a PATCH of no link', r);
    if (c.account === null) fail('a change answered without a key', r);
    const slug = api?.slug as string;
    const before = links.get(slug);
    if (before?.owner !== c.account) fail(`a change of a link not of ${c.account}`, r);
    const link = JSON.parse(r.body) as Record<string, unknown>;
    const sent = parsedBody(c.request) as Record<string, unknown>;
    if (link.slug !== slug) fail('a change answered with another slug', r);
    const want = typeof sent.url === 'string' ? sent.url : before?.destinationUrl;
    if (link.destinationUrl !== want) fail('a changed destination that is not the one sent', r);
    if ('tag' in sent && link.tag !== sent.tag) fail('a changed tag that is not the one sent', r);
    links.set(slug, { owner: c.account as Account, destinationUrl: link.destinationUrl as string });
  }

  if (r.status === 204) {
    const api = apiSlug(c.request.target);
    if (c.request.method !== 'DELETE' || !api || api.analytics || api.slug === undefined)
      fail('a 204 that is no deletion of a link', r);
    const slug = api?.slug as string;
    const link = links.get(slug);
    if (c.account === null || link?.owner !== c.account) fail(`a deletion of a link not of ${c.account}`, r);
    if (r.body !== '') fail('a 204 with a body', r);
    links.delete(slug);
    deleted.set(slug, link as ModelLink);
  }

  if (r.status === 200 && !(c.request.method === 'POST' && path === '/api/v1/links/bulk')) {
    const api = apiSlug(c.request.target);
    if (api) {
      if (c.account === null) fail('an API read answered without a key', r);
      const link = api.slug === undefined ? undefined : links.get(api.slug);
      if (!link) fail('a 200 for a link that was never created', r);
      if (link?.owner !== c.account) fail(`another account's link shown to ${c.account}`, r);
      // A HEAD is answered with the status alone.
      const body = c.request.method === 'HEAD' ? undefined : (JSON.parse(r.body) as Record<string, unknown>);
      if (body && body.slug !== api.slug) fail('a read of another slug', r);
      if (body && !api.analytics && body.destinationUrl !== link?.destinationUrl)
        fail('a read of another destination', r);
    } else if (path === '/api/v1/links') {
      if (c.account === null) fail('a list answered without a key', r);
      const body = c.request.method === 'HEAD' ? undefined : (JSON.parse(r.body) as { links: { slug: string }[] });
      for (const listed of body?.links ?? []) {
        if (links.get(listed.slug)?.owner !== c.account) fail(`a link not of ${c.account} in its list`, r);
      }
    } else if (!/^\/(healthz|readyz|metrics|openapi\.json|docs(\/.*)?|robots\.txt|favicon\.ico)$/.test(path)) {
      fail('a 200 for a path with no resource', r);
    }
  }

  if (expected && !expected.includes(r.status) && !(overload && r.status === 503)) {
    fail(`a clean ${c.endpoint} answered ${r.status}, not ${expected.join(' or ')}`, r);
  }
}

async function send(c: HostileCase, overload = false): Promise<RawResponse[]> {
  sent++;
  let responses: RawResponse[];
  try {
    responses = await exchange(port, encodeRequest(c.request), {
      timeoutMs: overload ? 90_000 : ANSWER_WITHIN_MS,
      head: c.request.method === 'HEAD',
    });
  } catch (error) {
    throw new Error(`no answer (${(error as Error).message})\n${show(c.request)}`);
  }
  await check(c, responses, overload);
  return responses;
}

function plainCreate(owner: Account, body: Record<string, string>): HostileCase {
  return {
    endpoint: 'create',
    request: {
      method: 'POST',
      target: '/api/v1/links',
      headers: [
        ['Host', '127.0.0.1'],
        ['Authorization', `Bearer ${world.keys[owner]}`],
        ['Content-Type', 'application/json'],
      ],
      body: JSON.stringify(body),
    },
    account: owner,
    authenticates: true,
    clean: true,
  };
}

function plainGet(target: string, endpoint: Endpoint, account: Account | null, extra: Partial<HostileCase> = {}) {
  const headers: Array<readonly [string, string]> = [['Host', '127.0.0.1']];
  if (account) headers.push(['Authorization', `Bearer ${world.keys[account]}`]);
  return {
    endpoint,
    request: { method: 'GET', target, headers },
    account,
    authenticates: account !== null,
    clean: true,
    ...extra,
  } satisfies HostileCase;
}

/** A person's redirect: a browser's GET of the slug, counted as a click. */
function browserVisit(slug: string, extra: [string, string][] = []): HostileCase {
  return {
    ...plainGet(`/${slug}`, 'redirect', null, { slug }),
    request: {
      method: 'GET',
      target: `/${slug}`,
      headers: [['Host', '127.0.0.1'], ['User-Agent', FIREFOX], ...extra],
    },
  };
}

const property = (arbitrary: fc.Arbitrary<HostileCase>, numRuns: number) =>
  fc.assert(
    fc.asyncProperty(
      // fast-check prints a counterexample as this, long values cut, rather than in full.
      arbitrary.map((c) => Object.assign(c, { [fc.toStringMethod]: () => `\n${show(c.request)}` })),
      async (c) => {
        await send(c);
      },
    ),
    { numRuns, seed: SEED, verbose: 1 },
  );

const timeFor = (runs: number) => 60_000 + runs * 200;

// ---------------------------------------------------------------- the properties

describe('hostile input, generated (fast-check)', () => {
  it(
    `POST /api/v1/links: ${runsOf('create')} generated requests`,
    async () => {
      await property(createCase(world), runsOf('create'));
    },
    timeFor(runsOf('create')),
  );

  it(
    `POST /api/v1/links/bulk: ${runsOf('bulk')} generated requests`,
    async () => {
      await property(bulkCase(world), runsOf('bulk'));
    },
    timeFor(runsOf('bulk')),
  );

  it(
    `PATCH /api/v1/links/:slug: ${runsOf('update')} generated requests`,
    async () => {
      await property(updateCase(world), runsOf('update'));
    },
    timeFor(runsOf('update')),
  );

  it(
    `GET /api/v1/links/:slug: ${runsOf('read')} generated requests`,
    async () => {
      await property(readCase(world), runsOf('read'));
    },
    timeFor(runsOf('read')),
  );

  it(
    `GET /api/v1/links: ${runsOf('list')} generated requests`,
    async () => {
      await property(listCase(world), runsOf('list'));
    },
    timeFor(runsOf('list')),
  );

  it(
    `GET /api/v1/links/:slug/analytics: ${runsOf('analytics')} generated requests`,
    async () => {
      await property(analyticsCase(world), runsOf('analytics'));
    },
    timeFor(runsOf('analytics')),
  );

  it(
    `GET and HEAD /:slug: ${runsOf('redirect')} generated requests`,
    async () => {
      await property(redirectCase(world), runsOf('redirect'));
    },
    timeFor(runsOf('redirect')),
  );

  it(
    `DELETE /api/v1/links/:slug: ${runsOf('delete')} generated requests`,
    async () => {
      await property(deleteCase(world), runsOf('delete'));
    },
    timeFor(runsOf('delete')),
  );

  it(
    `any method on any path: ${runsOf('any')} generated requests`,
    async () => {
      await property(anyCase(world), runsOf('any'));
    },
    timeFor(runsOf('any')),
  );

  it(
    `every webhook route: ${runsOf('webhook')} generated requests`,
    async () => {
      await property(webhookCase(world), runsOf('webhook'));
    },
    timeFor(runsOf('webhook')),
  );

  it(
    `every domain route: ${runsOf('domain')} generated requests`,
    async () => {
      await property(domainCase(world), runsOf('domain'));
    },
    timeFor(runsOf('domain')),
  );

  it('refuses every kind of webhook URL the rules name, with a key and otherwise valid body: a 400 on url', async () => {
    for (const url of REFUSED_WEBHOOK_URLS) {
      const [answer] = await send({
        endpoint: 'webhook',
        request: {
          method: 'POST',
          target: '/api/v1/webhooks',
          headers: [
            ['Host', '127.0.0.1'],
            ['Authorization', `Bearer ${world.keys.pro}`],
            ['Content-Type', 'application/json'],
          ],
          body: JSON.stringify({ url, events: ['link.created'] }),
        },
        account: 'pro',
        authenticates: true,
        clean: false,
      });
      expect([url, answer?.status, (JSON.parse(answer?.body ?? '{}') as { field?: string }).field]).toEqual([
        url,
        400,
        'url',
      ]);
    }
  });

  it(
    `GET /healthz: ${runsOf('health')} generated requests`,
    async () => {
      await property(healthCase(world), runsOf('health'));
    },
    timeFor(runsOf('health')),
  );

  it('met every kind of answer, not only refusals', () => {
    const seen = (key: string) => tally.get(key) ?? 0;
    // Too few runs (a quick HOSTILE_RUNS=100 while debugging) may miss some by chance, and the rarer ones
    // (a taken slug, a body too large, a plan's range) are only sure to come up in the full run.
    if (RUNS < 500) return;
    const kinds = [
      'create:201',
      'create:400',
      'create:401',
      'read:200',
      'read:404',
      'list:200',
      'list:400',
      'analytics:200',
      'analytics:400',
    ];
    kinds.push('redirect:302', 'redirect:404', 'any:404', 'bulk:200', 'bulk:400', 'update:400', 'update:404');
    kinds.push('delete:404', 'webhook:201', 'webhook:400', 'webhook:404', 'domain:201', 'domain:400', 'domain:404');
    if (RUNS >= 5000) kinds.push('create:409', 'create:413', 'analytics:403', 'update:200', 'delete:204');
    expect(kinds.filter((kind) => seen(kind) === 0)).toEqual([]);
  });

  it('stored exactly the links it answered 201 for, each under its owner, as changed and deleted since', async () => {
    const accountIds = new Map<string, Account>();
    for (const owner of ACCOUNTS) {
      const { rows } = await infra.pool.query<{ account_id: string }>(
        'SELECT account_id FROM api_keys WHERE key_hash = $1',
        [hashApiKey(world.keys[owner])],
      );
      accountIds.set(rows[0]?.account_id as string, owner);
    }
    const { rows } = await infra.pool.query<{ slug: string; account_id: string; destination_url: string }>(
      `SELECT slug, account_id, destination_url FROM slug_claims`,
    );
    const stored = new Map(
      rows.map((row) => [row.slug, { owner: accountIds.get(row.account_id), destinationUrl: row.destination_url }]),
    );
    // A deleted link's claim stays (its slug is never given out again), marked deleted.
    expect(stored).toEqual(new Map([...links, ...deleted]));
    const { rows: gone } = await infra.pool.query<{ slug: string }>(
      'SELECT slug FROM slug_claims WHERE deleted_at IS NOT NULL',
    );
    expect(new Set(gone.map((row) => row.slug))).toEqual(new Set(deleted.keys()));
    // The projection catches up with the same links, the deleted ones marked.
    await eventually(async () => {
      const { rows: projected } = await infra.pool.query<{ live: string; gone: string }>(
        'SELECT count(*) FILTER (WHERE deleted_at IS NULL) AS live, count(*) FILTER (WHERE deleted_at IS NOT NULL) AS gone FROM links',
      );
      return Number(projected[0]?.live) === links.size && Number(projected[0]?.gone) === deleted.size
        ? true
        : undefined;
    }, 30_000);
  }, 60_000);
});

describe('over TCP', () => {
  /** A clean create and its redirect, read and analytics: what must keep working. */
  async function normalTraffic(): Promise<void> {
    const slug = unusedSlug();
    const url = fc.sample(cleanUrl, 1)[0] as string;
    const tag = fc.sample(cleanTag, 1)[0] as string;
    const [created] = await send(plainCreate('pro', { url, customSlug: slug, tag }));
    expect(created?.status).toBe(201);
    const [redirected] = await send(plainGet(`/${slug}`, 'redirect', null, { slug }));
    expect([redirected?.status, redirected?.headers.location]).toEqual([302, new URL(url).href]);
    const [read] = await send(plainGet(`/api/v1/links/${slug}`, 'read', 'pro', { slug }));
    expect(read?.status).toBe(200);
    const [hidden] = await send(plainGet(`/api/v1/links/${slug}`, 'read', 'free', { slug }));
    expect(hidden?.status).toBe(404);
    const [health] = await send(plainGet('/healthz', 'health', null));
    expect(health?.status).toBe(200);
  }

  it('200 idle connections and a 100 KB header do not stop normal requests', async () => {
    const idle: Socket[] = await Promise.all(
      Array.from(
        { length: 200 },
        (_, i) =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect(port, '127.0.0.1', () => {
              // Half say nothing at all; half start a request and stall in its headers.
              if (i % 2 === 1) socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
              resolve(socket);
            });
            socket.on('error', reject);
          }),
      ),
    );
    try {
      const big = await send({
        endpoint: 'any',
        request: {
          method: 'GET',
          target: '/healthz',
          headers: [
            ['Host', '127.0.0.1'],
            ['X-Big', 'b'.repeat(100_000)],
          ],
        },
        account: null,
        authenticates: false,
        clean: false,
      });
      expect(big[0]?.status).toBe(431);
      expect(JSON.parse(big[0]?.body ?? '')).toEqual({
        error: 'Request Header Fields Too Large',
        code: 'headers_too_large',
        detail: 'The request line and header lines are over 16 KiB.',
      });
      const before = Date.now();
      await normalTraffic();
      expect(Date.now() - before).toBeLessThan(10_000);
      expect(idle.filter((s) => !s.destroyed).length).toBe(200);
    } finally {
      for (const socket of idle) socket.destroy();
    }
  }, 60_000);

  it('a visitor who resets the connection while its link is looked up costs nobody else a click', async () => {
    // New links are not cached: each redirect waits for Postgres, and the visitor is gone by the answer.
    const all = Array.from({ length: 21 }, unusedSlug);
    const [slug, ...slugs] = all as [string, ...string[]];
    for (const customSlug of all) {
      const [created] = await send(plainCreate('pro', { url: 'https://example.com/reset', customSlug }));
      expect(created?.status).toBe(201);
    }
    const clickMetrics = async () => {
      const [res] = await send(plainGet('/metrics', 'any', null));
      const text = res?.body ?? '';
      const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      return {
        queued: metric('shortlink_clicks_queued_total'),
        sent: metric('shortlink_clicks_sent_total'),
        rejected: metric('shortlink_clicks_rejected_total'),
        depth: metric('shortlink_click_queue_depth'),
      };
    };
    const before = await clickMetrics();
    await Promise.all(
      slugs.map(
        (slug) =>
          new Promise<void>((resolve, reject) => {
            const socket = connect(port, '127.0.0.1', () => {
              socket.write(`GET /${slug} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${FIREFOX}\r\n\r\n`);
              setImmediate(() => {
                socket.resetAndDestroy();
                resolve();
              });
            });
            socket.on('error', reject);
          }),
      ),
    );
    // Then people click a link that works, and each of their clicks is sent
    const visits = Array.from({ length: 30 }, () => browserVisit(slug));
    for (const visit of visits) expect((await send(visit))[0]?.status).toBe(302);
    const after = await eventually(async () => {
      const now = await clickMetrics();
      return now.depth === 0 && now.sent - before.sent >= visits.length ? now : undefined;
    }, 30_000);
    expect(after.sent - before.sent).toBe(after.queued - before.queued);
    expect(after.rejected).toBe(0);
  }, 60_000);

  it(`a burst of ${BURST} concurrent requests is answered: 2xx, 3xx, 4xx or a JSON 503, never a hang`, async () => {
    const hostile = fc.sample(fc.oneof(createCase(world), anyCase(world), redirectCase(world)), BURST / 10);
    const linked = [...links.entries()];
    const cases = Array.from({ length: BURST }, (_, i): HostileCase => {
      const [slug, link] = linked[i % linked.length] as [string, { owner: Account }];
      switch (i % 10) {
        case 0:
        case 1:
        case 2:
        case 3:
          return browserVisit(slug, [['X-Forwarded-For', `203.0.113.${i % 250}`]]);
        case 4:
        case 5:
          return plainCreate(i % 4 === 0 ? 'pro' : 'free', { url: `https://example.com/burst/${i}` });
        case 6:
          return plainGet(`/api/v1/links/${slug}`, 'read', link.owner, { slug });
        case 7:
          return plainGet(`/api/v1/links/${slug}/analytics?range=30d`, 'analytics', link.owner, {
            slug,
            range: '30d',
          });
        case 8:
          return plainGet('/healthz', 'health', null);
        default:
          return hostile[Math.floor(i / 10)] as HostileCase;
      }
    });
    // The whole burst fits the listen queue (`ss` gives a listener's size as its Send-Q). Past it, the kernel
    // drops handshakes and hands out SYN cookies, and a request of several segments whose first was dropped has
    // the rest refused by the cookie check: a reset, and no answer (about 1 CI run in 4 with Node's 511).
    const [, , queueSize] = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' })
      .trim()
      .split(/\s+/);
    expect(Number(queueSize)).toBeGreaterThanOrEqual(BURST);
    const before = Date.now();
    const outcomes = await Promise.allSettled(cases.map((c) => send(c, true)));
    const seconds = (Date.now() - before) / 1000;
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    const unavailable = tally.get('create:503') ?? 0;
    console.log(`[hostile] burst of ${BURST} answered in ${seconds.toFixed(1)} s; ${unavailable} creates answered 503`);
    expect(failures.slice(0, 5)).toEqual([]);
    // Still serving afterwards.
    await normalTraffic();
  }, 180_000);
});

describe('afterwards', () => {
  it('is healthy: /healthz 200, a create and its redirect work, no click worker died or dropped a click', async () => {
    // Still the process started at first: it never crashed.
    expect(() => process.kill(server.pid, 0)).not.toThrow();
    const [health] = await send(plainGet('/healthz', 'health', null));
    expect(health?.status).toBe(200);
    const slug = unusedSlug();
    const [created] = await send(plainCreate('free', { url: 'https://example.com/after', customSlug: slug }));
    expect(created?.status).toBe(201);
    const [redirected] = await send(plainGet(`/${slug}`, 'redirect', null, { slug }));
    expect(redirected?.headers.location).toBe('https://example.com/after');
    const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    const metrics = await eventually(async () => {
      const [res] = await send(plainGet('/metrics', 'any', null));
      const text = res?.body ?? '';
      return metric(text, 'shortlink_click_queue_depth') === 0 ? text : undefined;
    }, 30_000);
    expect(metric(metrics, 'shortlink_click_worker_restarts_total')).toBe(0);
    expect(metric(metrics, 'shortlink_clicks_dropped_total')).toBe(0);
    expect(metric(metrics, 'shortlink_clicks_sent_total')).toBe(metric(metrics, 'shortlink_clicks_queued_total'));
    expect(metric(metrics, 'shortlink_clicks_rejected_total')).toBe(0);
  }, 60_000);
});
