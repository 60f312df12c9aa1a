/**
 * The redirect route's work on one warm link, for an instruction count that the machine's load does not move:
 * `valgrind --tool=callgrind node bench/dist/redirect-route-probe.js <checkout> <redirects> [domains]`.
 * It loads the redirector of `<checkout>` (built) into a bare fastify, answers `<redirects>` GETs of one cached link
 * without rules through `inject`, and exits; callgrind's "Collected" is the process's instructions. Run at two counts,
 * the difference over the count difference is a redirect's instructions, start-up and warm-up cancelled. Given
 * `domains`, the map holds that many verified domains, none of them the request's (as on an installation that has
 * some); the checkout's redirector must have one. Without valgrind, it prints the ns a redirect of its timed second
 * half took. docs/decisions/0083-the-redirect-route-measured-in-process.md.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

interface Redirector {
  routes(app: unknown): Promise<void>;
}

async function main(): Promise<void> {
  const [root = '.', count = '1000', domainCount = '0'] = process.argv.slice(2);
  const load = createRequire(join(root, 'package.json'));
  const fastify = load('fastify') as (options: object) => {
    register(plugin: (app: unknown) => Promise<void>): Promise<void>;
    ready(): Promise<void>;
    inject(request: object): Promise<{ statusCode: number }>;
  };
  const redirector = load(join(root, 'services/redirector/dist/index.js')) as {
    createRedirector(deps: object): Redirector;
    LinkCache: new (options: object) => { resolve(slug: string): Promise<unknown> };
  };
  const cache = new redirector.LinkCache({
    lookup: async (slug: string) =>
      slug === 'launch'
        ? {
            slug,
            linkId: '00000000-0000-4000-8000-000000000001',
            accountId: '00000000-0000-4000-8000-00000000000a',
            location: 'https://example.com/launch',
          }
        : null,
    maxEntries: 10,
  });
  await cache.resolve('launch');
  let domains: object | undefined;
  if (Number(domainCount) > 0) {
    const { ServedDomainMap } = load(join(root, 'services/redirector/dist/domains/served-domain-map.js')) as {
      ServedDomainMap: new (options: object) => { replaceAll(domains: object[]): void };
    };
    const map = new ServedDomainMap({ trusted: () => true, lookup: async () => null });
    map.replaceAll(
      Array.from({ length: Number(domainCount) }, (_, i) => ({
        hostname: `brand-${i}.example.com`,
        accountId: '00000000-0000-4000-8000-00000000000b',
        rootRedirect: null,
        notFoundRedirect: null,
      })),
    );
    domains = map;
  }
  const app = fastify({ logger: false });
  await app.register((scope) =>
    redirector.createRedirector({ cache, onRedirect: () => undefined, ...(domains ? { domains } : {}) }).routes(scope),
  );
  await app.ready();
  const request = {
    method: 'GET',
    url: '/launch?utm_source=mail',
    headers: {
      host: 'sho.rt',
      'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36',
    },
  };
  // The first half warms the route up; the second is timed, for a wall-clock A/B of the same route on a quiet machine.
  const total = Number(count);
  const half = Math.floor(total / 2);
  const took = new Float64Array(total - half);
  let started = 0n;
  for (let i = 0; i < total; i++) {
    const at = process.hrtime.bigint();
    if (i === half) started = at;
    const { statusCode } = await app.inject(request);
    if (statusCode !== 302) throw new Error(`redirect ${i} answered ${statusCode}`);
    if (i >= half) took[i - half] = Number(process.hrtime.bigint() - at);
  }
  took.sort();
  console.log(
    JSON.stringify({
      redirects: took.length,
      nsPerRedirect: Number(process.hrtime.bigint() - started) / took.length,
      p99Ns: took[Math.floor(took.length * 0.99)],
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
