import { Client, Pool } from 'pg';
import type { FastifyInstance } from 'fastify';
import { createAccountWithKey, memoryRateLimiter, postgresAuthenticator, requireApiKey } from '@shortlink/accounts';
import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { CHANNELS, migrate, MIGRATIONS_DIR } from '@shortlink/postgres';
import {
  createScratchPostgres,
  infraEnv,
  startDnsTestServer,
  type DnsTestServer,
  type ScratchDatabase,
} from '@shortlink/testing';
import { serviceAddresses } from '../links/rules/self-link';
import { redirectorAcks, type RedirectorAcks } from '../links/stores/redirector-acks';
import { composeDomainsApi } from '../wiring';
import { registerDomainRoutes } from './domains-api';

/**
 * The domains API on real Postgres (migration 0019) and a real DNS server
 * (the test one), composed as the write API composes it, with two accounts
 * side by side: B never sees or changes A's domain, and cannot claim a
 * hostname A verified.
 */
const env = infraEnv(process.env);

type Domain = { hostname: string; status: string; verification: { name: string; value: string } };

describe('the domains API on Postgres and DNS', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  let dns: DnsTestServer;
  let app: FastifyInstance;
  let acks: RedirectorAcks;
  const keys = { a: '', b: '' };

  const account = async (name: string): Promise<string> =>
    `Bearer ${(await createAccountWithKey(pool, { accountName: name, keyName: name, plan: 'free' })).key}`;

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    pool = new Pool({ connectionString: db.url, max: 4 });
    await migrate(pool, MIGRATIONS_DIR);
    dns = await startDnsTestServer();
    keys.a = await account('a');
    keys.b = await account('b');
    // A short timeout: the silent server's case answers within three of them.
    // The write API's own wait for the redirectors (none is leased here: a change waits for nobody).
    acks = redirectorAcks({ connectionString: db.url, pool, logger: { warn: () => undefined } });
    await acks.start();
    const domains = composeDomainsApi({ DNS_SERVERS: [dns.address], DNS_TIMEOUT_MS: 300 }, pool, acks);
    app = await buildProcessServer(
      [
        {
          name: 'write-api',
          async routes(scope) {
            scope.decorateRequest('account', null);
            registerDomainRoutes(scope, domains, {
              authenticated: requireApiKey(postgresAuthenticator(pool), memoryRateLimiter({ free: 1000, pro: 1000 })),
              service: serviceAddresses('https://sho.rt'),
              publicBaseUrl: 'https://sho.rt',
            });
          },
        },
      ],
      {
        name: 'write-api',
        trustProxy: false,
        logger: false,
        metrics: createMetricsRegistry({ processMetrics: false }),
      },
      () => true,
    );
  });

  afterAll(async () => {
    await app?.close();
    await acks?.stop();
    await dns?.close();
    await pool?.end();
    await db?.drop();
  });

  const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, authorization: string, payload?: unknown) =>
    app.inject({
      method,
      url,
      headers: { authorization },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const claim = async (key: string, hostname: string) => {
    const res = await send('POST', '/api/v1/domains', key, { hostname });
    expect(res.statusCode).toBe(201);
    return res.json<Domain>();
  };

  it('claims a domain pending with its own TXT record, and verifies it once DNS holds that record', async () => {
    const domain = await claim(keys.a, 'Links.Example.COM.');
    expect(domain).toMatchObject({
      hostname: 'links.example.com',
      status: 'pending',
      verification: { type: 'TXT', name: '_shortlink-challenge.links.example.com' },
      verifiedAt: null,
    });
    expect(domain.verification.value).toMatch(/^shortlink-verify=[A-Za-z0-9_-]{22}$/);
    const verify = () => send('POST', '/api/v1/domains/links.example.com/verify', keys.a);

    // No record at the name: NXDOMAIN.
    const absent = await verify();
    expect(absent.statusCode).toBe(422);
    expect(absent.json()).toMatchObject({
      code: 'domain_not_verified',
      detail: expect.stringMatching(/no TXT record/),
    });
    // A record of another token (an old claim's, another account's).
    dns.setTxt(domain.verification.name, ['shortlink-verify=someone-else', 'v=spf1 -all']);
    const wrong = await verify();
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json<{ detail: string }>().detail).toMatch(/2 TXT records .* hold no shortlink-verify=/);

    dns.setTxt(domain.verification.name, ['v=spf1 -all', domain.verification.value]);
    const verified = await verify();
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toMatchObject({
      hostname: 'links.example.com',
      status: 'verified',
      verifiedAt: expect.any(String),
    });
    // Verified stays verified, without another lookup.
    dns.remove(domain.verification.name);
    const asked = dns.queries().length;
    expect((await verify()).json()).toMatchObject({ status: 'verified' });
    expect(dns.queries()).toHaveLength(asked);
    expect((await send('GET', '/api/v1/domains/LINKS.example.com', keys.a)).json()).toMatchObject({
      status: 'verified',
    });
  });

  it('keeps account B away from A’s domain: a 404 like an unknown one’s, and no claim of a verified hostname', async () => {
    const domain = await claim(keys.a, 'go.example.org');
    // B may claim it while it is pending (each claim has its own token) …
    const theirs = await claim(keys.b, 'go.example.org');
    expect(theirs.verification.value).not.toBe(domain.verification.value);
    dns.setTxt(domain.verification.name, [domain.verification.value]);
    expect((await send('POST', '/api/v1/domains/go.example.org/verify', keys.a)).statusCode).toBe(200);
    // … but A's record does not verify B's claim, and once A verified it B cannot claim it anew.
    dns.setTxt(domain.verification.name, [domain.verification.value, theirs.verification.value]);
    const late = await send('POST', '/api/v1/domains/go.example.org/verify', keys.b);
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'domain_taken' });
    await send('DELETE', '/api/v1/domains/go.example.org', keys.b);
    const again = await send('POST', '/api/v1/domains', keys.b, { hostname: 'GO.example.org' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'domain_taken', field: 'hostname' });
    expect((await send('POST', '/api/v1/domains', keys.a, { hostname: 'go.example.org' })).json()).toMatchObject({
      code: 'domain_exists',
    });

    const before = await pool.query('SELECT * FROM domains WHERE hostname = $1', ['go.example.org']);
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { rootRedirect: 'https://evil.example.net/' }],
      ['POST', '/verify', undefined],
      ['DELETE', '', undefined],
    ] as const) {
      const res = await send(method, `/api/v1/domains/go.example.org${suffix}`, keys.b, body);
      const nobody = await send(method, `/api/v1/domains/nobody.example.org${suffix}`, keys.b, body);
      expect(res.statusCode).toBe(404);
      expect(res.body.replace('go.', '{h}.')).toBe(nobody.body.replace('nobody.', '{h}.'));
    }
    expect((await pool.query('SELECT * FROM domains WHERE hostname = $1', ['go.example.org'])).rows).toEqual(
      before.rows,
    );
    expect((await send('GET', '/api/v1/domains', keys.b)).json()).toEqual({ domains: [] });
    const listed = (await send('GET', '/api/v1/domains', keys.a)).json<{ domains: Domain[] }>();
    expect(listed.domains.map((d) => d.hostname)).toEqual(['go.example.org', 'links.example.com']);
  });

  it('verifies one claim of a hostname when two accounts verify it at the same moment', async () => {
    // Both records published, both verifies sent together: the unique index decides, not the order of arrival.
    for (let round = 0; round < 10; round++) {
      const hostname = `race-${round}.example.com`;
      const [ours, theirs] = await Promise.all([claim(keys.a, hostname), claim(keys.b, hostname)]);
      dns.setTxt(ours.verification.name, [ours.verification.value, theirs.verification.value]);
      const answers = await Promise.all(
        [keys.a, keys.b].map((key) => send('POST', `/api/v1/domains/${hostname}/verify`, key)),
      );
      expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      expect(answers.find((r) => r.statusCode === 409)!.json()).toMatchObject({ code: 'domain_taken' });
      const { rows } = await pool.query(
        'SELECT count(*)::int AS n FROM domains WHERE hostname = $1 AND verified_at IS NOT NULL',
        [hostname],
      );
      expect(rows[0]).toEqual({ n: 1 });
    }
  });

  it('answers 503 when DNS fails or is silent, within the timeout, and changes nothing', async () => {
    const domain = await claim(keys.b, 'slow.example.net');
    dns.setTxt(domain.verification.name, [domain.verification.value]);
    for (const mode of ['servfail', 'silent'] as const) {
      dns.setMode(mode);
      const started = Date.now();
      const res = await send('POST', '/api/v1/domains/slow.example.net/verify', keys.b);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('30');
      expect(res.json()).toMatchObject({
        code: 'dns_unavailable',
        detail: expect.stringMatching(/ESERVFAIL|ETIMEOUT/),
      });
      expect(Date.now() - started).toBeLessThan(2000);
    }
    dns.setMode('answer');
    expect((await send('GET', '/api/v1/domains/slow.example.net', keys.b)).json()).toMatchObject({ status: 'pending' });
  });

  it('stores and serves the redirects, and deleting tells listeners in its transaction', async () => {
    await claim(keys.b, 'r.example.net');
    const change = (body: unknown) => send('PATCH', '/api/v1/domains/r.example.net', keys.b, body);
    const set = await change({
      rootRedirect: 'https://www.example.net/',
      notFoundRedirect: 'https://www.example.net/404',
    });
    expect(set.json()).toMatchObject({
      rootRedirect: 'https://www.example.net/',
      notFoundRedirect: 'https://www.example.net/404',
    });
    expect((await change({ notFoundRedirect: null })).json()).toMatchObject({
      rootRedirect: 'https://www.example.net/',
      notFoundRedirect: null,
    });
    for (const [body, code, field] of [
      [{}, 'empty_change', undefined],
      [{ hostname: 'x.example.net' }, 'unknown_field', 'hostname'],
      [{ rootRedirect: 'ftp://x' }, 'invalid_body', 'rootRedirect'],
      [{ rootRedirect: 'https://sho.rt/abc' }, 'url_self_reference', 'rootRedirect'],
      [{ notFoundRedirect: 'https://u:p@example.net/' }, 'url_credentials', 'notFoundRedirect'],
    ] as const) {
      const res = await change(body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code, ...(field ? { field } : {}) });
    }

    const listener = new Client({ connectionString: db.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query(`LISTEN ${CHANNELS.domainChanged}`);
    try {
      expect((await send('DELETE', '/api/v1/domains/R.EXAMPLE.NET.', keys.b)).statusCode).toBe(204);
      expect((await send('GET', '/api/v1/domains/r.example.net', keys.b)).statusCode).toBe(404);
      expect((await send('DELETE', '/api/v1/domains/r.example.net', keys.b)).statusCode).toBe(404);
      await listener.query('SELECT 1');
      // Under the change's id, which each redirector confirms once it holds the domain's new state.
      expect(heard).toEqual([expect.stringMatching(/^[0-9a-f-]{36} r\.example\.net$/)]);
    } finally {
      await listener.end();
    }
  });

  it.each([
    ['127.0.0.1', 'hostname_ip_address'],
    ['0x7f.1', 'hostname_ip_address'],
    ['[::1]', 'hostname_ip_address'],
    ['аpple.com', 'hostname_mixed_scripts'],
    ['sho.rt', 'hostname_self_reference'],
    ['co.uk', 'hostname_public_suffix'],
    ['intranet', 'invalid_hostname'],
    ['_x.example.com', 'invalid_hostname'],
    [`${'a'.repeat(64)}.example.com`, 'invalid_hostname'],
    ['https://links.example.com/', 'invalid_hostname'],
    [42, 'invalid_hostname'],
  ])('refuses the hostname %j with a 400 %s', async (hostname, code) => {
    const res = await send('POST', '/api/v1/domains', keys.a, { hostname });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code, field: 'hostname', detail: expect.any(String) });
  });
});
