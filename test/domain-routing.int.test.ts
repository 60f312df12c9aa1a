import { request } from 'node:http';
import { startDnsTestServer, type DnsTestServer } from '@shortlink/testing';
import { issueKey, openTestInfra, redirectorsLeased, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/**
 * Branded domains at the redirectors, with the write API and two redirectors as separate processes from their own
 * entry points (as a fleet runs them): a request is answered by the domain its `Host` names, in any spelling; a
 * domain's root and not-found redirects reach both redirectors before the change is answered; a domain never serves
 * a slug that is not its own, another account's least of all; once its DELETE is answered, neither redirector serves
 * it, and its `Host` is the installation's again.
 */
describe('branded domains at the redirectors', () => {
  let infra: TestInfra;
  let dns: DnsTestServer;
  let writeApi: RunningProcess;
  let redirectors: RunningProcess[];
  const keys = { a: '', b: '' };

  beforeAll(async () => {
    buildOnce();
    infra = await openTestInfra();
    dns = await startDnsTestServer();
    [keys.a, keys.b] = await Promise.all([issueKey(infra.pool, 'pro'), issueKey(infra.pool, 'pro')]);
    const common = {
      DATABASE_URL: infra.db.url,
      KAFKA_BROKERS: infra.brokers.join(','),
      KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    };
    const started = await Promise.all([
      startProcess('services/write-api/dist/main.js', {
        ...common,
        PUBLIC_BASE_URL: 'https://sho.rt',
        DNS_SERVERS: dns.address,
      }),
      startProcess('services/redirector/dist/main.js', common),
      startProcess('services/redirector/dist/main.js', common),
    ]);
    writeApi = started[0]!;
    redirectors = started.slice(1);
    // Both redirectors hold their lease before the first change.
    await redirectorsLeased(infra.pool, 2);
  }, 120_000);

  afterAll(async () => {
    const codes = await Promise.all([writeApi?.stop(), ...(redirectors ?? []).map((r) => r.stop())]);
    await dns?.close();
    await infra?.close();
    expect(codes).toEqual([0, 0, 0]);
  });

  const api = async (method: string, path: string, as: string, body?: unknown) => {
    const res = await fetch(`${writeApi.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as Record<string, unknown>) };
  };
  /** A request as a visitor's browser sends it to that name (fetch cannot set `Host`). */
  const visit = (redirector: RunningProcess, host: string, path: string) =>
    new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const req = request(`${redirector.url}${path}`, { headers: { host } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
      });
      req.on('error', reject);
      req.end();
    });
  const everywhere = (host: string, path: string) => Promise.all(redirectors.map((r) => visit(r, host, path)));
  const verified = async (as: string, hostname: string) => {
    const claim = await api('POST', '/api/v1/domains', as, { hostname });
    expect(claim.status).toBe(201);
    const record = claim.body!.verification as { name: string; value: string };
    dns.setTxt(record.name, [record.value]);
    expect((await api('POST', `/api/v1/domains/${hostname}/verify`, as)).status).toBe(200);
  };

  it('answers each domain by its own redirects, never with a slug it does not hold, and stops at once when deleted', async () => {
    expect(
      (await api('POST', '/api/v1/links', keys.a, { url: 'https://example.com/launch', customSlug: 'launch' })).status,
    ).toBe(201);
    await verified(keys.a, 'go.a.example');
    await verified(keys.b, 'go.b.example');

    // Redirects set: the 200 leaves once both redirectors hold them.
    const set = await api('PATCH', '/api/v1/domains/go.a.example', keys.a, {
      rootRedirect: 'https://www.a.example/',
      notFoundRedirect: 'https://www.a.example/missing',
    });
    expect(set.status).toBe(200);
    for (const host of ['go.a.example', 'GO.A.Example.:443', 'go.a.example:8080']) {
      expect(await everywhere(host, '/')).toEqual([
        { status: 302, location: 'https://www.a.example/' },
        { status: 302, location: 'https://www.a.example/' },
      ]);
      // The account's own link is the installation's, not the domain's: its not-found redirect.
      expect(await everywhere(host, '/launch')).toEqual([
        { status: 302, location: 'https://www.a.example/missing' },
        { status: 302, location: 'https://www.a.example/missing' },
      ]);
    }
    // Another account's domain, without redirects: A's slug is a 404 there.
    expect((await everywhere('go.b.example', '/launch')).map((r) => r.status)).toEqual([404, 404]);
    // The installation's own name, and any name that is no verified domain, serve the installation's links.
    for (const host of ['sho.rt', 'unknown.example', '127.0.0.1']) {
      expect(await everywhere(host, '/launch')).toEqual([
        { status: 302, location: 'https://example.com/launch' },
        { status: 302, location: 'https://example.com/launch' },
      ]);
    }

    // Deleted: the very next request in either redirector is the installation's.
    expect((await api('DELETE', '/api/v1/domains/go.a.example', keys.a)).status).toBe(204);
    expect(await everywhere('go.a.example', '/launch')).toEqual([
      { status: 302, location: 'https://example.com/launch' },
      { status: 302, location: 'https://example.com/launch' },
    ]);
    expect((await everywhere('go.a.example', '/')).map((r) => r.status)).toEqual([404, 404]);
    expect((await everywhere('go.b.example', '/launch')).map((r) => r.status)).toEqual([404, 404]);
  });

  it('holds a slug once per domain: the same slug on two accounts’ domains and on ours goes three ways, each changed and deleted apart', async () => {
    await verified(keys.a, 'links.a.example');
    await verified(keys.b, 'links.b.example');
    const create = (as: string, body: Record<string, unknown>) => api('POST', '/api/v1/links', as, body);
    const own = await create(keys.a, { url: 'https://example.com/own', customSlug: 'sale' });
    const onA = await create(keys.a, { url: 'https://a.example/sale', customSlug: 'sale', domain: 'Links.A.Example.' });
    const onB = await create(keys.b, { url: 'https://b.example/sale', customSlug: 'sale', domain: 'links.b.example' });
    expect([own.status, onA.status, onB.status]).toEqual([201, 201, 201]);
    expect(own.body).toMatchObject({ slug: 'sale', domain: null, shortUrl: 'https://sho.rt/sale' });
    expect(onA.body).toMatchObject({
      slug: 'sale',
      domain: 'links.a.example',
      shortUrl: 'https://links.a.example/sale',
    });
    expect(onB.body).toMatchObject({
      slug: 'sale',
      domain: 'links.b.example',
      shortUrl: 'https://links.b.example/sale',
    });
    // Generated slugs go on a domain too.
    const generated = await create(keys.a, { url: 'https://a.example/only', domain: 'links.a.example' });
    expect(generated.status).toBe(201);
    const onlyA = generated.body!.slug as string;

    // Taken on that domain; a domain that is another account's, unverified or no hostname; ours by name.
    const refused = await Promise.all([
      create(keys.a, { url: 'https://a.example/x', customSlug: 'sale', domain: 'links.a.example' }),
      create(keys.a, { url: 'https://a.example/x', customSlug: 'sale-b', domain: 'links.b.example' }),
      create(keys.a, { url: 'https://a.example/x', domain: 'unverified.example' }),
      create(keys.a, { url: 'https://a.example/x', domain: 'http://links.a.example/' }),
      create(keys.a, { url: 'https://a.example/x', domain: 42 }),
      create(keys.a, { url: 'https://a.example/x', customSlug: 'sale', domain: 'SHO.RT' }),
    ]);
    expect(refused.map((r) => [r.status, r.body!.code, r.body!.field])).toEqual([
      [409, 'slug_taken', 'customSlug'],
      [400, 'invalid_domain', 'domain'],
      [400, 'invalid_domain', 'domain'],
      [400, 'invalid_domain', 'domain'],
      [400, 'invalid_domain', 'domain'],
      [409, 'slug_taken', 'customSlug'],
    ]);

    const both = async (host: string, path: string) =>
      (await everywhere(host, path)).map((r) => r.location ?? r.status);
    expect(await both('links.a.example', '/sale')).toEqual(['https://a.example/sale', 'https://a.example/sale']);
    expect(await both('LINKS.B.EXAMPLE:443', '/sale')).toEqual(['https://b.example/sale', 'https://b.example/sale']);
    expect(await both('sho.rt', '/sale')).toEqual(['https://example.com/own', 'https://example.com/own']);
    expect(await both('links.a.example', `/${onlyA}`)).toEqual(['https://a.example/only', 'https://a.example/only']);
    // A domain link is its domain's alone: not the installation's, not another domain's.
    expect(await both('sho.rt', `/${onlyA}`)).toEqual([404, 404]);
    expect(await both('links.b.example', `/${onlyA}`)).toEqual([404, 404]);

    // Changed by slug and domain: the 200 leaves once both redirectors hold it; the other two links are as they were.
    const changed = await api('PATCH', '/api/v1/links/sale?domain=links.a.example', keys.a, {
      url: 'https://a.example/sale-2',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ domain: 'links.a.example', destinationUrl: 'https://a.example/sale-2' });
    expect(await both('links.a.example', '/sale')).toEqual(['https://a.example/sale-2', 'https://a.example/sale-2']);
    expect(await both('links.b.example', '/sale')).toEqual(['https://b.example/sale', 'https://b.example/sale']);
    expect(await both('sho.rt', '/sale')).toEqual(['https://example.com/own', 'https://example.com/own']);
    // Another account's link on its own domain, and a query that is no hostname.
    expect((await api('PATCH', '/api/v1/links/sale?domain=links.b.example', keys.a, { tag: 'x' })).status).toBe(404);
    const badQuery = await api('DELETE', '/api/v1/links/sale?domain=a..b', keys.a);
    expect([badQuery.status, badQuery.body!.code]).toEqual([400, 'invalid_domain']);

    // A domain with links stays; once they are deleted, it goes.
    const inUse = await api('DELETE', '/api/v1/domains/links.a.example', keys.a);
    expect([inUse.status, inUse.body!.code]).toEqual([409, 'domain_in_use']);
    for (const slug of ['sale', onlyA]) {
      expect((await api('DELETE', `/api/v1/links/${slug}?domain=links.a.example`, keys.a)).status).toBe(204);
    }
    expect(await both('links.a.example', '/sale')).toEqual([404, 404]);
    expect(await both('sho.rt', '/sale')).toEqual(['https://example.com/own', 'https://example.com/own']);
    expect((await api('DELETE', '/api/v1/domains/links.a.example', keys.a)).status).toBe(204);
  });
});
