import { connect, type AddressInfo } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { HttpError } from './errors';
import { healthRoutes } from './health';
import { createServer } from './server';

function build(ready = true) {
  const app = createServer({ logger: false, trustProxy: false, bodyLimit: 1024 });
  void app.register(healthRoutes, { service: 'test', ready: () => ready });
  app.post('/echo', { schema: { body: { type: 'object' } } }, async (request) => request.body);
  app.delete('/thing', async (_request, reply) => reply.code(204).send());
  app.get('/teapot', async () => {
    throw new HttpError(418, 'I am a teapot', 'teapot', { detail: 'Tea only.' }, { 'x-brewing': 'no' });
  });
  app.get('/postgres-away', async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  });
  app.get('/postgres-restarting', async () => {
    throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
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
    expect(notReady.json()).toEqual({
      error: 'Not ready',
      code: 'not_ready',
      detail: 'The process is starting or draining.',
    });
  });

  it('turns malformed JSON into a 400 JSON error', async () => {
    const res = await build().inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid request body', code: 'invalid_body', detail: expect.any(String) });
  });

  it.each([['application/json'], ['application/json; charset=utf-8'], ['text/plain'], ['application/x-anything']])(
    'runs a route that takes no body when a request without one names a media type (%s)',
    async (contentType) => {
      const res = await build().inject({ method: 'DELETE', url: '/thing', headers: { 'content-type': contentType } });
      expect(res.statusCode).toBe(204);
    },
  );

  it.each([['application/json'], ['text/plain']])(
    'still refuses an empty body where the route needs one (%s)',
    async (contentType) => {
      const res = await build().inject({ method: 'POST', url: '/echo', headers: { 'content-type': contentType } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Invalid request body', code: 'invalid_body', detail: expect.any(String) });
    },
  );

  const mediaType = {
    error: 'Unsupported Media Type: send the body as JSON with Content-Type: application/json',
    code: 'unsupported_media_type',
  };
  it.each([
    ['text/plain', 'Content-Type is "text/plain"; expected application/json.'],
    [
      'application/x-www-form-urlencoded',
      `Content-Type is "application/x-www-form-urlencoded" (curl -d sends it: add -H 'Content-Type: application/json'); expected application/json.`,
    ],
    [undefined, 'The request has a body but no Content-Type: send it as application/json.'],
    ['json', 'Content-Type "json" is not a media type; expected application/json.'],
  ])('refuses a body of Content-Type %s with 415, naming the type it takes', async (contentType, detail) => {
    const res = await build().inject({
      method: 'POST',
      url: '/echo',
      headers: contentType === undefined ? {} : { 'content-type': contentType },
      payload: 'url=https://example.com',
    });
    expect([res.statusCode, res.json()]).toEqual([415, { ...mediaType, detail }]);
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await build().inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ a: 'x'.repeat(2000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'Request body too large', code: 'body_too_large', detail: expect.any(String) });
  });

  it('refuses a body in a content coding with 415, naming the one it takes, whether or not the body is coded', async () => {
    const json = JSON.stringify({ a: 1 });
    for (const [encoding, payload] of [
      ['gzip', gzipSync(json)],
      ['br', Buffer.from(json)],
      ['identity, deflate', deflateSync(json)],
    ] as const) {
      const res = await build().inject({
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        payload,
      });
      expect([encoding, res.statusCode, res.headers['accept-encoding'], res.json()]).toEqual([
        encoding,
        415,
        'identity',
        {
          error: 'Unsupported Content-Encoding: send the body uncompressed',
          code: 'unsupported_content_encoding',
          detail: `Content-Encoding is "${encoding}"; send the body uncompressed, with no Content-Encoding.`,
        },
      ]);
    }
  });

  it('takes a body labelled identity, and an empty one whatever its label', async () => {
    const echoed = await build().inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      payload: '{"a":1}',
    });
    expect([echoed.statusCode, echoed.json()]).toEqual([200, { a: 1 }]);
    const deleted = await build().inject({
      method: 'DELETE',
      url: '/thing',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(deleted.statusCode).toBe(204);
  });

  it('passes HttpError status, text and headers through', async () => {
    const res = await build().inject({ method: 'GET', url: '/teapot' });
    expect(res.statusCode).toBe(418);
    expect(res.headers['x-brewing']).toBe('no');
    expect(res.json()).toEqual({ error: 'I am a teapot', code: 'teapot', detail: 'Tea only.' });
  });

  it('hides internal errors behind a generic 500', async () => {
    const res = await build().inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      error: 'Internal server error',
      code: 'internal',
      detail: expect.stringMatching(/^An unexpected error; the service logged it under request id "req-[0-9a-z]+"\.$/),
    });
    expect(res.body).not.toMatch(/secret/);
  });

  it.each([
    [400, 'Bad Request', 'bad_request'],
    [403, 'Forbidden', 'forbidden'],
    [416, 'Range Not Satisfiable', 'range_not_satisfiable'],
    [412, 'Precondition Failed', 'precondition_failed'],
  ])(
    "answers a library's own %i with its reason phrase and a code of its own, never its message",
    async (status, error, code) => {
      const app = createServer({ logger: false, trustProxy: false });
      app.get('/lib', async () => {
        throw Object.assign(new Error('/etc/passwd is outside the root'), { statusCode: status });
      });
      const res = await app.inject({ method: 'GET', url: '/lib' });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ error, code, detail: `GET "/lib" is refused: ${error}.` });
      expect(res.body).not.toMatch(/passwd/);
    },
  );

  it('answers 503 with Retry-After when a store is unreachable, not 500', async () => {
    for (const url of ['/postgres-away', '/postgres-restarting']) {
      const res = await build().inject({ method: 'GET', url });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({
        error: 'The service is temporarily unavailable. Try again in a moment.',
        code: 'temporarily_unavailable',
        detail: 'A store this request needs did not answer in time.',
      });
    }
  });

  it('answers a path that does not decode with a JSON 400, not echoing it back', async () => {
    const app = build();
    app.get('/:slug', async () => ({ ok: true }));
    for (const url of ['/%zz', '/%E0%A4%A', '/%ED%A0%80', '/nope/%']) {
      const res = await app.inject({ method: 'GET', url });
      expect([url, res.statusCode, res.json()]).toEqual([
        url,
        400,
        { error: 'Malformed request URL', code: 'malformed_url', detail: expect.any(String) },
      ]);
    }
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await build().inject({ method: 'GET', url: '/nope/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: 'Not found',
      code: 'not_found',
      detail: 'No route serves GET "/nope/nope"; the API reference is at /docs.',
    });
  });

  it.each([
    ['malformed JSON', { 'content-type': 'application/json' }, '{'],
    ['a body of another media type', { 'content-type': 'text/plain' }, 'x'],
    ['a body in a content coding', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{}'],
    ['text no store can hold', { 'content-type': 'application/json' }, '{"a":"\\u0000"}'],
  ])(
    'answers an unknown route 404, and a known path with another method 405, whatever its body holds: %s',
    async (_name, headers, payload) => {
      const app = build();
      app.get('/:slug', async () => ({ ok: true }));
      // A preflight route under a prefix makes no path under it a known one.
      app.options('/api/*', async () => ({ ok: true }));
      const notFound = {
        status: 404,
        allow: undefined,
        body: { error: 'Not found', code: 'not_found', detail: expect.stringMatching(/^No route serves [A-Z]+ "\//) },
      };
      for (const [method, url, expected] of [
        ['POST', '/nope/nope', notFound],
        // The catch-all `GET /:slug` makes no path a known one.
        ['POST', '/anything', notFound],
        ['PUT', '/api/v1/nothing', notFound],
        ['OPTIONS', '/', notFound],
        [
          'PUT',
          '/healthz',
          {
            status: 405,
            allow: 'GET, HEAD',
            body: {
              error: 'Method Not Allowed',
              code: 'method_not_allowed',
              detail: 'This path takes GET, HEAD, not PUT.',
            },
          },
        ],
        [
          'DELETE',
          '/echo/?x=1',
          {
            status: 405,
            allow: 'POST',
            body: {
              error: 'Method Not Allowed',
              code: 'method_not_allowed',
              detail: 'This path takes POST, not DELETE.',
            },
          },
        ],
      ] as const) {
        const res = await app.inject({ method, url, headers, payload });
        expect({ method, url, status: res.statusCode, allow: res.headers.allow, body: res.json<unknown>() }).toEqual({
          method,
          url,
          ...expected,
        });
      }
    },
  );
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
    expect(body.json()).toEqual({
      error: 'Invalid request body',
      code: 'invalid_body',
      detail: "The body must have required property 'name'.",
    });
    const query = await app.inject({ method: 'GET', url: '/things?n=abc' });
    expect(query.statusCode).toBe(400);
    expect(query.json()).toEqual({
      error: 'Invalid request',
      code: 'invalid_request',
      detail: 'The querystring/n must be integer.',
    });
  });
});

describe('text no store can hold', () => {
  it.each([
    ['U+0000 in a value', '{"url":"https://example.com/\\u0000"}'],
    ['U+0000 in a nested value', '{"url":"https://example.com/","meta":{"a":["ok","b\\u0000"]}}'],
    ['U+0000 in a key', '{"u\\u0000rl":"https://example.com/"}'],
    ['a lone surrogate', '{"tag":"\\ud800"}'],
  ])('refuses %s with 400 before the route runs', async (_name, payload) => {
    const app = createServer({ logger: false, trustProxy: false });
    let reached = false;
    app.post('/things', async () => {
      reached = true;
      return { ok: true };
    });
    const res = await app.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid request body', code: 'invalid_body', detail: expect.any(String) });
    expect(reached).toBe(false);
  });

  it.each([
    ['a byte that is never UTF-8', Buffer.from('{"url":"https://a.example/\xff\xfe"}', 'latin1')],
    ['a lone surrogate written as raw bytes', Buffer.from('{"url":"https://a.example/\xed\xa0\x80"}', 'latin1')],
    ['an overlong encoding of "/"', Buffer.from('{"url":"https://a.example/\xc0\xaf"}', 'latin1')],
    ['a sequence cut short at the end', Buffer.from('{"url":"https://a.example/\xe2\x82"}', 'latin1')],
  ])('refuses %s with 400, rather than store U+FFFD in its place', async (_name, payload) => {
    const app = createServer({ logger: false, trustProxy: false });
    app.post('/things', async (request) => request.body);
    for (const contentType of ['application/json', 'application/json; charset=iso-8859-1']) {
      const res = await app.inject({
        method: 'POST',
        url: '/things',
        headers: { 'content-type': contentType },
        payload,
      });
      expect([contentType, res.statusCode, res.json()]).toEqual([
        contentType,
        400,
        { error: 'Invalid request body', code: 'invalid_body', detail: expect.any(String) },
      ]);
    }
  });

  it('takes UTF-8 text beyond ASCII as it was sent, with or without a byte order mark', async () => {
    const app = createServer({ logger: false, trustProxy: false });
    app.post('/things', async (request) => request.body);
    const text = '{"url":"https://bücher.example/straße?q=日本語"}';
    for (const payload of [Buffer.from(text), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])]) {
      const res = await app.inject({
        method: 'POST',
        url: '/things',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect([res.statusCode, res.json()]).toEqual([200, { url: 'https://bücher.example/straße?q=日本語' }]);
    }
  });

  it("still refuses prototype poisoning, as fastify's own JSON parser does", async () => {
    const app = createServer({ logger: false, trustProxy: false });
    app.post('/things', async (request) => request.body);
    const res = await app.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: '{"__proto__":{"admin":true}}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid request body', code: 'invalid_body', detail: expect.any(String) });
  });

  it('lets a whole surrogate pair (an emoji) through', async () => {
    const app = createServer({ logger: false, trustProxy: false });
    app.post('/things', async (request) => request.body);
    const res = await app.inject({ method: 'POST', url: '/things', payload: { tag: '🚀 été' } });
    expect(res.json()).toEqual({ tag: '🚀 été' });
  });
});

describe('path segments of any length', () => {
  it('reach their route instead of a 414', async () => {
    const app = createServer({ logger: false, trustProxy: false });
    app.get<{ Params: { slug: string } }>('/:slug', async (request, reply) =>
      reply.code(404).send({ error: 'Link not found', code: 'not_found', length: request.params.slug.length }),
    );
    const res = await app.inject({ method: 'GET', url: `/${'a'.repeat(5000)}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Link not found', code: 'not_found', length: 5000 });
  });
});

/** Errors from beneath the routes need a real socket: `inject` never reaches Node's HTTP parser. */
describe('errors of the HTTP layer, over a real socket', () => {
  let app: ReturnType<typeof createServer>;
  let port: number;

  beforeAll(async () => {
    app = createServer({
      logger: false,
      trustProxy: false,
      limits: { headersTimeoutMs: 500, requestTimeoutMs: 800 },
    });
    app.post('/echo', async (request) => request.body);
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  /** Sends raw bytes (optionally in timed pieces) and returns everything the server answered. */
  function raw(pieces: { data: string; afterMs?: number }[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      socket.on('data', (d) => (answer += d.toString('latin1')));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
      let delay = 0;
      for (const piece of pieces) {
        delay += piece.afterMs ?? 0;
        setTimeout(() => socket.writable && socket.write(piece.data), delay);
      }
    });
  }
  const statusAndBody = (answer: string) => ({
    status: Number(answer.split(' ')[1]),
    body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown,
  });

  it('answers headers over the limit with a JSON 431', async () => {
    const answer = await raw([{ data: `GET /x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n` }]);
    expect(statusAndBody(answer)).toEqual({
      status: 431,
      body: {
        error: 'Request Header Fields Too Large',
        code: 'headers_too_large',
        detail: 'The request line and header lines are over 16 KiB.',
      },
    });
  });

  it('keeps reading a refused request until its client is done, so a client that reads late still gets the 431', async () => {
    // The client sends its headers' first 100 KB, then more every 500 ms for 3 s, and reads only then:
    // a connection closed while bytes still come is reset, and the reset discards the unread answer.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.pause();
      let received = '';
      socket.on('data', (d) => {
        received += d.toString('latin1');
        if (received.includes('}')) socket.end();
      });
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
      socket.write(`GET /x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(100_000)}`);
      let pieces = 0;
      const more = setInterval(() => {
        if (++pieces <= 6) socket.write('a'.repeat(1000));
        else {
          clearInterval(more);
          socket.resume();
        }
      }, 500);
    });
    expect(statusAndBody(answer)).toEqual({
      status: 431,
      body: {
        error: 'Request Header Fields Too Large',
        code: 'headers_too_large',
        detail: 'The request line and header lines are over 16 KiB.',
      },
    });
  }, 10_000);

  /**
   * Sends `head`, then `pieces` more bytes every 100 ms with the answer unread, then reads: the
   * server's answers, in the order given.
   */
  function lateReader(head: string, pieces: string[], then = '', closeAfterMs = 300): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.pause();
      let received = '';
      socket.on('data', (d) => (received += d.toString('latin1')));
      socket.on('close', () => resolve(received));
      socket.on('error', (e) => reject(new Error(`${e.message} after ${JSON.stringify(received)}`)));
      socket.write(head);
      let sent = 0;
      const more = setInterval(() => {
        const piece = pieces[sent++];
        if (piece !== undefined) {
          socket.write(piece);
          return;
        }
        clearInterval(more);
        if (then) socket.write(then);
        socket.resume();
        setTimeout(() => socket.end(), closeAfterMs);
      }, 100);
    });
  }
  const answers = (received: string) =>
    received
      .split(/(?=HTTP\/1\.1 )/)
      .map((answer) => ({ status: Number(answer.split(' ')[1]), body: answer.slice(answer.indexOf('\r\n\r\n') + 4) }));

  it('reads and drops a refused body while its client sends it, so a client that reads late gets the 413, and the connection serves on', async () => {
    // A body over the limit is refused before it is read; closed while the client still sends,
    // the connection is reset, and the reset discards an answer the client has not read yet.
    const body = 'a'.repeat(200 * 1024);
    const received = await lateReader(
      `POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${body.length * 2}\r\n\r\n`,
      [body.slice(0, 1000), body, body.slice(1000)],
      'GET /elsewhere HTTP/1.1\r\nHost: a\r\n\r\n',
    );
    expect(answers(received)).toEqual([
      {
        status: 413,
        body: JSON.stringify({
          error: 'Request body too large',
          code: 'body_too_large',
          detail: 'The body is over the 65536 bytes this route takes.',
        }),
      },
      {
        status: 404,
        body: JSON.stringify({
          error: 'Not found',
          code: 'not_found',
          detail: 'No route serves GET "/elsewhere"; the API reference is at /docs.',
        }),
      },
    ]);
  }, 10_000);

  it.each([
    [
      'a body refused',
      `POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${65 * 1024}\r\n\r\n`,
      413,
    ],
    ['a GET answered without its body', 'GET /elsewhere HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\n\r\n', 404],
  ])(
    'answers a request once: %s, then never finished, closes the connection without a 408',
    async (_name, head, status) => {
      const received = await lateReader(head, ['a'.repeat(2000)], '', 2500);
      expect(answers(received).map((a) => a.status)).toEqual([status]);
    },
    10_000,
  );

  it('answers a malformed request line with a JSON 400', async () => {
    const answer = await raw([{ data: 'NOT HTTP AT ALL\r\n\r\n' }]);
    expect(statusAndBody(answer)).toEqual({
      status: 400,
      body: {
        error: 'Malformed HTTP request',
        code: 'malformed_request',
        detail: 'The request is not well-formed HTTP/1.x.',
      },
    });
  });

  it('answers an HTTP/1.1 request without Host with a JSON 400 (Node alone sends an empty one)', async () => {
    const answer = await raw([
      { data: 'POST /echo HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}' },
    ]);
    expect(statusAndBody(answer)).toEqual({
      status: 400,
      body: {
        error: 'Malformed HTTP request',
        code: 'malformed_request',
        detail: 'A request has at most one Host header, and an HTTP/1.1 request exactly one.',
      },
    });
  });

  it.each([
    [
      'two Host lines',
      'POST /echo HTTP/1.1\r\nHost: a\r\nhost: b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    ],
    [
      'two Host lines, HTTP/1.0',
      'POST /echo HTTP/1.0\r\nHOST: a\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    ],
    ['a request line without a version (HTTP/0.9)', 'GET /echo\r\n\r\n'],
    ['a request line without a version, and headers after it', 'GET /echo\r\nHost: a\r\n\r\n'],
  ])('answers %s with a JSON 400 (RFC 9112 3.2; Node would serve it)', async (_name, data) => {
    const answer = await raw([{ data }]);
    expect(statusAndBody(answer)).toEqual({
      status: 400,
      body: {
        error: 'Malformed HTTP request',
        code: 'malformed_request',
        detail: expect.stringMatching(/Host header|not HTTP\/1\.0 or HTTP\/1\.1/),
      },
    });
  });

  it.each([
    ['a coding before chunked', 'Transfer-Encoding: gzip, chunked\r\n'],
    ['a coding and chunked on two lines', 'Transfer-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n'],
  ])(
    'answers a body in a transfer coding other than chunked (%s) with a JSON 400, not read as it is',
    async (_name, te) => {
      const answer = await raw([
        {
          data: `POST /echo HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Type: application/json\r\n${te}\r\n2\r\n{}\r\n0\r\n\r\n`,
        },
      ]);
      expect(statusAndBody(answer)).toEqual({
        status: 400,
        body: {
          error: 'Malformed HTTP request',
          code: 'malformed_request',
          detail: expect.stringMatching(/^Transfer-Encoding is ".+"; only chunked is taken\.$/),
        },
      });
    },
  );

  it('takes a chunked body, in any case', async () => {
    const answer = await raw([
      {
        data: 'POST /echo HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: Chunked\r\n\r\n7\r\n{"a":1}\r\n0\r\n\r\n',
      },
    ]);
    expect(statusAndBody(answer)).toEqual({ status: 200, body: { a: 1 } });
  });

  it('still serves an HTTP/1.0 request without Host', async () => {
    const answer = await raw([
      { data: 'POST /echo HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}' },
    ]);
    expect(statusAndBody(answer)).toEqual({ status: 200, body: { a: 1 } });
  });

  it('answers an Expect it cannot meet with a JSON 417 (Node alone sends an empty one)', async () => {
    const answer = await raw([{ data: 'GET /healthz HTTP/1.1\r\nHost: a\r\nExpect: the-unexpected\r\n\r\n' }]);
    expect(statusAndBody(answer)).toEqual({
      status: 417,
      body: {
        error: 'Expectation Failed',
        code: 'expectation_failed',
        detail: 'Only Expect: 100-continue is supported.',
      },
    });
  });

  it('answers CONNECT with a JSON 404, as any method without a route (Node alone drops the connection)', async () => {
    const answer = await raw([{ data: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n' }]);
    expect(statusAndBody(answer)).toEqual({
      status: 404,
      body: { error: 'Not found', code: 'not_found', detail: 'CONNECT is not served: this is not a proxy.' },
    });
  });

  const TIMED_OUT = {
    status: 408,
    body: {
      error: 'Request Timeout',
      code: 'request_timeout',
      detail: expect.stringMatching(/^The request did not arrive in full within [0-9.]+ s\.$/),
    },
  };

  it('answers a body that never finishes (Content-Length larger than sent) with a JSON 408', async () => {
    const answer = await raw([
      { data: 'POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":' },
    ]);
    expect(statusAndBody(answer)).toEqual(TIMED_OUT);
  });

  it('answers a body trickled a byte at a time with a JSON 408', async () => {
    const head = 'POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n';
    const answer = await raw([{ data: head }, ...Array.from({ length: 20 }, () => ({ data: ' ', afterMs: 150 }))]);
    expect(statusAndBody(answer)).toEqual(TIMED_OUT);
  });
});

describe('closing with answers under way', () => {
  it('answers the requests under way with `Connection: close`, so the close does not wait on their connections', async () => {
    // Given a server answering a request on a keep-alive connection, and one idle connection
    const app = createServer({ logger: false, trustProxy: false });
    let started!: () => void;
    const underWay = new Promise<void>((resolve) => (started = resolve));
    app.get('/slow', async () => {
      started();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { ok: true };
    });
    app.get('/fast', async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const send = (path: string) =>
      new Promise<{ head: string; closed: Promise<void> }>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let answer = '';
        const closed = new Promise<void>((done) => socket.once('close', () => done()));
        socket.on('data', (d) => {
          answer += d.toString('latin1');
          if (answer.includes('\r\n\r\n')) resolve({ head: answer.slice(0, answer.indexOf('\r\n\r\n')), closed });
        });
        socket.on('error', reject);
        socket.write(`GET ${path} HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n`);
      });
    const idle = await send('/fast');
    expect(idle.head).toMatch(/\r\nconnection: keep-alive/i);
    const slow = send('/slow');
    await underWay;

    // When the server closes
    const closing = app.close();

    // Then the answer under way ends its connection, and the close completes (before the keep-alive timeout of 72 s)
    const { head, closed } = await slow;
    expect(head).toMatch(/^HTTP\/1.1 200/);
    expect(head).toMatch(/\r\nconnection: close/i);
    await Promise.all([closing, closed, idle.closed]);
  });
});

describe('closing with requests still arriving', () => {
  it.each([
    ['an error a route throws', '/teapot', 418],
    ['a path refused before routing', '/%zz', 400],
    ['an unknown path', '/nowhere/at/all', 404],
    ['an answer', '/fine', 200],
  ])('ends the connection of %s whose request completes once the close has begun', async (_, path, status) => {
    // Given a connection that has sent part of a request
    const app = createServer({ logger: false, trustProxy: false });
    app.get('/teapot', async () => {
      throw new HttpError(418, 'I am a teapot', 'teapot', { detail: 'Tea only.' });
    });
    app.get('/fine', async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const socket = connect((app.server.address() as AddressInfo).port, '127.0.0.1');
    let answer = '';
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (d) => (answer += d.toString('latin1')));
    await new Promise<void>((resolve) => socket.write('GET ', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 50));

    // When the server closes, and then the rest of the request arrives
    const closing = app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(`${path} HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n`);

    // Then it is answered, with `Connection: close`, and the close completes
    await Promise.all([closing, closed]);
    const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head).toMatch(/\r\nconnection: close/i);
  });
});
