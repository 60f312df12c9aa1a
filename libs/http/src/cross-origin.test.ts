import type { FastifyInstance } from 'fastify';
import { createMetricsRegistry } from '@shortlink/metrics';
import { HttpError } from './errors';
import { buildProcessServer, type ServiceModule } from './service';

/** An API module (a create that wants a key) and a redirector-like one, in one process as `npm start` runs them. */
const api: ServiceModule = {
  name: 'api',
  crossOrigin: true,
  async routes(app: FastifyInstance) {
    app.post(
      '/api/v1/links',
      {
        onRequest: async (request, reply) => {
          if (request.headers.authorization === undefined)
            throw new HttpError(401, 'Unauthorized', 'unauthorized', { detail: 'No key.' });
          void reply
            .header('ratelimit-limit', '60')
            .header('ratelimit-remaining', '59')
            .header('ratelimit-reset', '30');
        },
      },
      async (_request, reply) => reply.code(201).header('location', 'https://sho.rt/abc').send({ slug: 'abc' }),
    );
  },
};
const redirects: ServiceModule = {
  name: 'redirects',
  async routes(app: FastifyInstance) {
    app.get('/:slug', async (_request, reply) => reply.code(302).header('location', 'https://example.com/').send());
  },
};

const build = (corsOrigins?: string[]) =>
  buildProcessServer(
    [api, redirects],
    {
      name: 'test',
      trustProxy: false,
      logger: false,
      metrics: createMetricsRegistry({ processMetrics: false }),
      corsOrigins,
    },
    () => true,
  );

const APP = 'https://app.example.com';
const preflight = (origin?: string) => ({
  method: 'OPTIONS' as const,
  url: '/api/v1/links',
  headers: {
    ...(origin === undefined ? {} : { origin }),
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization,content-type,idempotency-key',
  },
});
const create = (headers: Record<string, string>) => ({
  method: 'POST' as const,
  url: '/api/v1/links',
  headers: { 'content-type': 'application/json', ...headers },
  payload: '{"url":"https://example.com/"}',
});

describe('CORS', () => {
  it('answers a preflight from an allowed origin with the headers, methods and time the API allows', async () => {
    const app = await build([APP, 'http://localhost:5173']);
    const res = await app.inject(preflight(APP));
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PATCH, DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('Authorization, Content-Type, Idempotency-Key');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toMatch(/Origin/);
    await app.close();
  });

  it('lets an allowed origin read every answer, errors included, with the headers a client needs', async () => {
    const app = await build([APP]);
    const created = await app.inject(create({ origin: APP, authorization: 'Bearer k' }));
    expect(created.statusCode).toBe(201);
    expect(created.headers['access-control-allow-origin']).toBe(APP);
    expect(String(created.headers['access-control-expose-headers']).split(', ')).toEqual(
      expect.arrayContaining(['Location', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
    const refused = await app.inject(create({ origin: APP }));
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(APP);
    await app.close();
  });

  it('gives an origin not allowed, and a request without Origin, no Access-Control-Allow-Origin', async () => {
    const app = await build([APP]);
    const other = await app.inject(preflight('https://evil.example'));
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const otherCreate = await app.inject(create({ origin: 'https://evil.example', authorization: 'Bearer k' }));
    expect(otherCreate.statusCode).toBe(201);
    expect(otherCreate.headers['access-control-allow-origin']).toBeUndefined();
    const noOrigin = await app.inject(create({ authorization: 'Bearer k' }));
    expect(noOrigin.statusCode).toBe(201);
    expect(noOrigin.headers['access-control-allow-origin']).toBeUndefined();
    await app.close();
  });

  it('allows any origin with *, never with credentials', async () => {
    const app = await build(['*']);
    const res = await app.inject(preflight('https://anywhere.example'));
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    await app.close();
  });

  it('never touches a redirect, and without CORS_ORIGINS allows nothing', async () => {
    const app = await build([APP]);
    const redirect = await app.inject({ url: '/abc', headers: { origin: APP } });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers['access-control-allow-origin']).toBeUndefined();
    await app.close();
    const closed = await build();
    const res = await closed.inject(preflight(APP));
    // No CORS: an OPTIONS is a method the path does not take.
    expect(res.statusCode).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect((await closed.inject(create({ origin: APP, authorization: 'Bearer k' }))).headers).not.toHaveProperty(
      'access-control-allow-origin',
    );
    await closed.close();
  });
});
