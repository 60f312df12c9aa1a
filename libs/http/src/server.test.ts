import { HttpError } from './errors';
import { healthRoutes } from './health';
import { createServer } from './server';

function build(ready = true) {
  const app = createServer({ logger: false, trustProxy: false, bodyLimit: 1024 });
  void app.register(healthRoutes, { service: 'test', ready: () => ready });
  app.post('/echo', { schema: { body: { type: 'object' } } }, async (request) => request.body);
  app.get('/teapot', async () => {
    throw new HttpError(418, 'I am a teapot', 'teapot', { 'x-brewing': 'no' });
  });
  app.get('/boom', async () => {
    throw new Error('secret internal detail');
  });
  return app;
}

describe('createServer', () => {
  it('answers healthz once ready and 503 before', async () => {
    const ok = await build(true).inject({ method: 'GET', url: '/healthz' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ status: 'ok', service: 'test' });
    const notReady = await build(false).inject({ method: 'GET', url: '/healthz' });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toEqual({ error: 'Not ready', code: 'not_ready' });
  });

  it('turns malformed JSON into a 400 JSON error', async () => {
    const res = await build().inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid request body', code: 'invalid_body' });
  });

  it('turns an unsupported content type into a 400 JSON error', async () => {
    const res = await build().inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Invalid request body');
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await build().inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ a: 'x'.repeat(2000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'Request body too large', code: 'body_too_large' });
  });

  it('passes HttpError status, text and headers through', async () => {
    const res = await build().inject({ method: 'GET', url: '/teapot' });
    expect(res.statusCode).toBe(418);
    expect(res.headers['x-brewing']).toBe('no');
    expect(res.json()).toEqual({ error: 'I am a teapot', code: 'teapot' });
  });

  it('hides internal errors behind a generic 500', async () => {
    const res = await build().inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'Internal server error', code: 'internal' });
    expect(res.body).not.toMatch(/secret/);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await build().inject({ method: 'GET', url: '/nope/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found', code: 'not_found' });
  });
});

describe('validation errors', () => {
  it('names the body when the body fails its schema', async () => {
    const app = createServer({ logger: false, trustProxy: false });
    app.post(
      '/things',
      { schema: { body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } },
      async () => ({ ok: true }),
    );
    app.get(
      '/things',
      { schema: { querystring: { type: 'object', properties: { n: { type: 'integer' } } } } },
      async () => ({ ok: true }),
    );
    const body = await app.inject({ method: 'POST', url: '/things', payload: { other: 1 } });
    expect(body.statusCode).toBe(400);
    expect(body.json()).toEqual({ error: 'Invalid request body', code: 'invalid_body' });
    const query = await app.inject({ method: 'GET', url: '/things?n=abc' });
    expect(query.statusCode).toBe(400);
    expect(query.json()).toEqual({ error: 'Invalid request', code: 'invalid_request' });
  });
});
