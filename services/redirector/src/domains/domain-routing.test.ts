import type { FastifyInstance } from 'fastify';
import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import type { ServedDomain } from '@shortlink/postgres';
import { createRedirector } from '../app';
import { LinkCache } from '../link-cache';
import { ServedDomainMap } from './served-domain-map';

/**
 * The redirect route by `Host`, on the process server with its real link cache and domain map: a verified domain
 * answers by its own redirects and never with the installation's slugs; any other name is the installation's; a map
 * not trusted confirms a domain before serving it.
 */
const A: ServedDomain = {
  hostname: 'go.a.example',
  accountId: '00000000-0000-4000-8000-00000000000a',
  rootRedirect: 'https://www.a.example/',
  notFoundRedirect: 'https://www.a.example/missing',
};
const B: ServedDomain = {
  ...A,
  hostname: 'go.b.example',
  accountId: '00000000-0000-4000-8000-00000000000b',
  rootRedirect: null,
  notFoundRedirect: null,
};

describe('the redirect route by Host', () => {
  let app: FastifyInstance;
  let trusted = true;
  const inPostgres = new Map<string, ServedDomain>();
  let unknownSlugs = 0;
  const domains = new ServedDomainMap({
    trusted: () => trusted,
    lookup: async (hostname) => {
      if (hostname === 'down.example') throw new Error('Postgres is away');
      return inPostgres.get(hostname) ?? null;
    },
  });

  beforeAll(async () => {
    const cache = new LinkCache({
      lookup: async (key) =>
        ({
          launch: { slug: key, location: 'https://example.com/launch', linkId: 'l', accountId: 'a' },
          // A's link on its domain, and a link under B's name that another account holds (B's hostname was once
          // theirs): keys are `hostname/slug`.
          'go.a.example/sale': { slug: key, location: 'https://a.example/sale', linkId: 'la', accountId: A.accountId },
          'go.b.example/sale': { slug: key, location: 'https://old.example/sale', linkId: 'lo', accountId: 'a' },
        })[key] ?? null,
      maxEntries: 10,
      negativeTtlMs: 1000,
    });
    app = await buildProcessServer(
      [createRedirector({ cache, domains, onUnknownSlug: () => unknownSlugs++ })],
      { name: 'test', trustProxy: false, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
      () => true,
    );
  });
  afterAll(() => app.close());
  beforeEach(() => {
    trusted = true;
    inPostgres.clear();
    domains.replaceAll([A, B]);
  });

  const visit = async (host: string, url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: { host } });
    return [res.statusCode, res.headers.location ?? null];
  };

  it('answers a verified domain by its redirects, in any spelling of its name', async () => {
    for (const host of ['go.a.example', 'Go.A.EXAMPLE.', 'go.a.example:443']) {
      expect(await visit(host, '/')).toEqual([302, 'https://www.a.example/']);
      expect(await visit(host, '/launch')).toEqual([302, 'https://www.a.example/missing']);
      expect(await visit(host, '/not-a-slug!')).toEqual([302, 'https://www.a.example/missing']);
    }
  });

  it("never serves the installation's slug on a domain: without redirects, the 404 of an unknown slug", async () => {
    const before = unknownSlugs;
    expect(await visit('go.b.example', '/launch')).toEqual([404, null]);
    expect(await visit('go.b.example', '/')).toEqual([404, null]);
    expect(unknownSlugs).toBe(before + 1);
  });

  it('serves a domain’s own links by slug, and a link under its name only when the domain’s account owns it', async () => {
    expect(await visit('go.a.example', '/sale')).toEqual([302, 'https://a.example/sale']);
    expect(await visit('GO.A.example.', '/sale')).toEqual([302, 'https://a.example/sale']);
    expect(await visit('go.b.example', '/sale')).toEqual([404, null]);
    // A domain's link is not the installation's.
    expect(await visit('sho.rt', '/sale')).toEqual([404, null]);
  });

  it("serves the installation's links on every other name", async () => {
    for (const host of ['sho.rt', 'unknown.example', '127.0.0.1:3000', '[::1]:3000', 'a.example.', 'bad host']) {
      expect(await visit(host, '/launch')).toEqual([302, 'https://example.com/launch']);
    }
  });

  it('confirms a domain in Postgres while the map is not trusted, and serves the last heard only when it is away', async () => {
    trusted = false;
    // Deleted while the listener was away: the installation's again.
    expect(await visit('go.a.example', '/launch')).toEqual([302, 'https://example.com/launch']);
    // Changed meanwhile: the fresh redirects.
    inPostgres.set('go.a.example', { ...A, rootRedirect: 'https://new.a.example/' });
    expect(await visit('go.a.example', '/')).toEqual([302, 'https://new.a.example/']);
    // Postgres away: as last heard.
    domains.apply('down.example', { ...A, hostname: 'down.example' });
    expect(await visit('down.example', '/')).toEqual([302, 'https://www.a.example/']);
  });

  it('stops serving a domain as soon as it is applied as gone', async () => {
    domains.apply('go.a.example', null);
    expect(await visit('go.a.example', '/launch')).toEqual([302, 'https://example.com/launch']);
    expect(domains.size).toBe(1);
  });
});
