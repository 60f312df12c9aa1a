import { createServer, processRoutes } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { BROWSER_PAGE_PATHS } from '@shortlink/service-redirector';
import { DASHBOARD_PATHS } from '@shortlink/service-analytics';
import {
  API_ROUTES,
  API_VERSION,
  buildApiDocument,
  OPENAPI_VERSION,
  type OpenApiDocument,
} from '@shortlink/service-api-docs';
import { composeSystem, systemConfig, type SystemStores } from './system';

/**
 * The API document (`GET /openapi.json`) is a valid OpenAPI 3.1 document by
 * Redocly's linter (the engine of `redocly lint`, its recommended rules,
 * which also check every example against its schema), and describes every
 * route a process of the system serves.
 */

let document: OpenApiDocument;

beforeAll(async () => {
  document = await buildApiDocument(API_ROUTES, { publicBaseUrl: 'https://sho.rt', version: API_VERSION });
});

const OPERATIONS = ['get', 'head', 'post', 'patch', 'put', 'delete'];

const documented = (doc: OpenApiDocument): string[] =>
  Object.entries(doc.paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => OPERATIONS.includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();

describe('the API document', () => {
  it('is OpenAPI 3.1 without a problem under Redocly’s recommended rules', async () => {
    // ESM-only: loaded as a module, not through Jest's CommonJS loader.
    const { createConfig, lintFromString } = await import('@redocly/openapi-core');
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: 'openapi.json',
      // A redirect answers 302, by design: it has no 2xx.
      config: await createConfig({ extends: ['recommended-strict'], rules: { 'operation-2xx-response': 'off' } }),
    });
    const report = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
    expect(document.openapi).toBe(OPENAPI_VERSION);
    expect(report).toEqual([]);
  });

  it('describes every route that the system serves, HEAD of a redirect included, and nothing else', async () => {
    // Fastify answers HEAD for every GET; the document shows it where a client uses it: the redirect.
    const headDocumented = new Set(API_ROUTES.filter((r) => r.head).map((r) => r.url));
    const served: string[] = [];
    const app = createServer({ logger: false, trustProxy: false });
    app.addHook('onRoute', (route) => {
      // The document and its reference page, the dashboard, and the pages for browsers and crawlers are no API.
      const page = BROWSER_PAGE_PATHS.includes(route.url) || DASHBOARD_PATHS.includes(route.url);
      if (route.url === '/openapi.json' || route.url.startsWith('/docs') || page) {
        return;
      }
      for (const method of [route.method].flat()) {
        if (method === 'HEAD' && !headDocumented.has(route.url)) continue;
        served.push(`${method} ${route.url.replace(/:(\w+)/g, '{$1}')}`);
      }
    });
    // The routes of the process itself, as buildProcessServer adds them.
    await processRoutes(app, {
      service: 'test',
      ready: () => true,
      metrics: createMetricsRegistry({ processMetrics: false }),
      report: async () => ({ ready: true, dependencies: [] }),
    });
    const system = await composeSystem(
      systemConfig.parse({ PUBLIC_BASE_URL: 'https://sho.rt', VISITOR_HASH_SECRET: 'a-visitor-secret-for-this-test' }),
      inertStores(),
    );
    for (const module of system.modules) if (module.routes) await app.register(module.routes);
    await app.ready();
    await app.close();
    expect(documented(document)).toEqual([...new Set(served)].sort());
  });

  it('names each error text of a response in its examples, and its schema allows exactly those', () => {
    interface ErrorMedia {
      schema: { properties: { code: { enum: string[] } } };
      examples: Record<string, { value: unknown }>;
    }
    const create = document.paths['/api/v1/links']?.post as unknown as {
      responses: Record<string, { content: { 'application/json': ErrorMedia } }>;
    };
    const conflict = create.responses['409']!.content['application/json'];
    expect(conflict.schema.properties.code.enum).toEqual(['slug_taken', 'idempotency_key_in_progress']);
    expect(conflict.examples.slugTaken!.value).toEqual({
      error: 'This slug is already taken',
      code: 'slug_taken',
      detail: 'Another link has this customSlug: choose another, or leave it out for a generated one.',
      field: 'customSlug',
    });
  });

  it('lists 503 overloaded with Retry-After among the answers of every operation taking a key, and of no redirect', () => {
    type Response = {
      $ref?: string;
      headers?: Record<string, { required?: boolean }>;
      content?: { 'application/json'?: { schema: { properties: { code: { enum: string[] } } } } };
    };
    const responses = (path: string, method: string) =>
      (document.paths[path]?.[method] as unknown as { responses: Record<string, Response> }).responses;
    // Without a 503 of its own: the shared response, which carries no RateLimit-* (refused before the key is read).
    expect(responses('/api/v1/account', 'get')['503']).toEqual({ $ref: '#/components/responses/Overloaded' });
    const shared = (document.components as { responses: Record<string, Response> }).responses.Overloaded!;
    expect(shared.headers?.['Retry-After']?.required).toBe(true);
    expect(shared.content?.['application/json']?.schema.properties.code.enum).toEqual(['overloaded']);
    // With one: its codes gain overloaded, and its RateLimit-* are not promised.
    const create = responses('/api/v1/links', 'post')['503']!;
    expect(create.content?.['application/json']?.schema.properties.code.enum).toContain('overloaded');
    expect(create.headers?.['RateLimit-Limit']?.required).toBe(false);
    expect(
      responses('/{slug}', 'get')['503']?.content?.['application/json']?.schema.properties.code.enum,
    ).not.toContain('overloaded');
  });

  it('declares detail and field in every error body, and lists the 415 of a body not sent as JSON', () => {
    type Media = { schema?: { properties?: Record<string, unknown> } };
    const errorBodies = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { responses?: Record<string, { content?: Record<string, Media> }> }>)
        .flatMap((operation) => Object.entries(operation.responses ?? {}))
        .filter(([status]) => Number(status) >= 400)
        // A browser's HTML 404 page is no error body.
        .flatMap(([, response]) =>
          response.content?.['application/json'] ? [response.content['application/json']] : [],
        ),
    );
    expect(errorBodies.length).toBeGreaterThan(20);
    // `/readyz`'s 503 names its dependencies and their states instead.
    for (const media of errorBodies.filter((m) => !('dependencies' in (m.schema?.properties ?? {})))) {
      expect(Object.keys(media.schema?.properties ?? {})).toEqual(expect.arrayContaining(['detail', 'field']));
    }
    const create = document.paths['/api/v1/links']?.post as unknown as {
      responses: Record<
        string,
        { content: { 'application/json': { schema: { properties: { code: { enum: string[] } } } } } }
      >;
    };
    expect(create.responses['415']!.content['application/json'].schema.properties.code.enum).toContain(
      'unsupported_media_type',
    );
    expect(create.responses['400']!.content['application/json'].schema.properties.code.enum).toContain('unknown_field');
  });
});

describe('the composed system', () => {
  it('answers a known path asked with another method 405, naming every service’s methods in Allow', async () => {
    const app = createServer({ logger: false, trustProxy: false });
    const system = await composeSystem(
      systemConfig.parse({ PUBLIC_BASE_URL: 'https://sho.rt', VISITOR_HASH_SECRET: 'a-visitor-secret-for-this-test' }),
      inertStores(),
    );
    for (const module of system.modules) if (module.routes) await app.register(module.routes);
    const put = await app.inject({ method: 'PUT', url: '/api/v1/links/summer' });
    expect([put.statusCode, put.headers.allow, put.json()]).toEqual([
      405,
      'GET, HEAD, PATCH, DELETE',
      {
        error: 'Method Not Allowed',
        code: 'method_not_allowed',
        detail: 'This path takes GET, HEAD, PATCH, DELETE, not PUT.',
      },
    ]);
    expect((await app.inject({ method: 'DELETE', url: '/api/v1/links' })).headers.allow).toBe('GET, HEAD, POST');
    // The short URL takes any one segment: another method there is an unknown path.
    expect((await app.inject({ method: 'POST', url: '/summer' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'PUT', url: '/no/such/path' })).statusCode).toBe(404);
    await app.close();
  });
});

/** Stores that are never used: composing touches no I/O, it only wires. */
function inertStores(): SystemStores {
  const client = { producer: () => ({}), admin: () => ({}), consumer: () => ({}) };
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
  return {
    pool: {},
    kafka: client,
    names: { topics: { links: 'l', clicks: 'c', deadLetter: 'd' }, groups: {} },
    clickhouse: {},
    logger,
    rateLimiter: { withPolicy: () => ({}) },
    metrics: createMetricsRegistry({ processMetrics: false }),
  } as unknown as SystemStores;
}
