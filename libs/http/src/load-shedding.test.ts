import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createMetricsRegistry } from '@shortlink/metrics';
import { buildProcessServer, type ServiceModule } from './service';

/** A module whose one route answers when told to, so that requests can be held in hand. */
function heldModule(name: string, shedsLoad: boolean) {
  const waiting: (() => void)[] = [];
  const module: ServiceModule = {
    name,
    shedsLoad,
    async routes(app: FastifyInstance) {
      const held = async () => {
        await new Promise<void>((resolve) => waiting.push(resolve));
        return { ok: true };
      };
      app.get(`/${name}`, held);
      app.post(`/${name}`, held);
    },
  };
  const releaseAll = () => waiting.splice(0).forEach((resolve) => resolve());
  const held = () => waiting.length;
  return { module, releaseAll, held };
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('load shedding', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const build = async (modules: ServiceModule[], maxInFlight: number, maxEventLoopDelayMs = 0) => {
    app = await buildProcessServer(
      modules,
      {
        name: 'test',
        trustProxy: false,
        logger: false,
        metrics: createMetricsRegistry(),
        loadShedding: { maxInFlight, maxEventLoopDelayMs },
      },
      () => true,
    );
    return app;
  };

  it('refuses the request beyond the bound at once with 503 overloaded and Retry-After, and takes one once there is room', async () => {
    // Given an API module whose process holds at most two of its requests, and a redirect module that never sheds
    const api = heldModule('api', true);
    const redirects = heldModule('redirects', false);
    const server = await build([api.module, redirects.module], 2);

    // When two requests are in hand and a third comes
    const first = server.inject({ method: 'GET', url: '/api' });
    const second = server.inject({ method: 'GET', url: '/api' });
    await until(() => api.held() === 2);
    const third = await server.inject({ method: 'GET', url: '/api' });

    // Then the third is refused without waiting, in the API's error shape
    expect(third.statusCode).toBe(503);
    expect(third.headers['retry-after']).toBe('2');
    expect(third.json()).toEqual({
      error: 'The service is over capacity. Try again after Retry-After seconds.',
      code: 'overloaded',
      detail: 'This instance has 2 requests in hand, its most; send this one again after Retry-After seconds.',
    });
    // And neither the health check nor a module that does not shed is refused
    expect((await server.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const redirect = server.inject({ method: 'GET', url: '/redirects' });
    await until(() => redirects.held() === 1);
    redirects.releaseAll();
    expect((await redirect).statusCode).toBe(200);

    // And once the two are answered, the next is taken
    api.releaseAll();
    expect((await first).statusCode).toBe(200);
    expect((await second).statusCode).toBe(200);
    const fourth = server.inject({ method: 'GET', url: '/api' });
    await until(() => api.held() === 1);
    api.releaseAll();
    expect((await fourth).statusCode).toBe(200);
  });

  it('counts a request its client gave up on as answered, so that aborted requests do not fill the bound', async () => {
    const api = heldModule('api', true);
    const server = await build([api.module], 1);
    const controller = new AbortController();
    await server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.server.address() as { port: number };
    const abandoned = fetch(`http://127.0.0.1:${port}/api`, { signal: controller.signal }).catch(() => 'aborted');
    await until(() => api.held() === 1);
    controller.abort();
    expect(await abandoned).toBe('aborted');
    // The handler still holds it, but its client is gone: the next request is taken.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const next = fetch(`http://127.0.0.1:${port}/api`);
    await until(() => api.held() === 2);
    api.releaseAll();
    expect((await next).status).toBe(200);
  });

  /** Sends raw bytes on a connection of its own, and resets it after `resetAfterMs`. */
  const sendThenReset = (port: number, text: string, resetAfterMs: number) =>
    new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(text);
        setTimeout(() => socket.resetAndDestroy(), resetAfterMs);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
    });

  it.each([
    [
      'client resets the connection after the whole request, while it is in hand',
      1,
      'POST /api HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    ],
  ])('releases a request whose %s, so that abandoned requests do not fill the bound', async (_name, bound, text) => {
    const api = heldModule('api', true);
    const server = await build([api.module], bound);
    await server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server.server.address() as { port: number };
    await sendThenReset(port, text, 100);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Their handlers still hold them, but their client is gone: the next request is taken, not refused.
    const heldBefore = api.held();
    let answered = false;
    const next = fetch(`http://127.0.0.1:${port}/api`).finally(() => (answered = true));
    await until(() => answered || api.held() > heldBefore);
    api.releaseAll();
    expect((await next).status).toBe(200);
  });

  it('refuses while the event loop runs late, and serves again once it keeps time', async () => {
    const quick: ServiceModule = {
      name: 'api',
      shedsLoad: true,
      routes: async (scope) => void scope.get('/api', async () => ({ ok: true })),
    };
    const server = await build([quick], 0, 500);
    /** Requests every 20 ms for `ms`, until one answers `stopAt`: the answers. */
    const answersFor = async (ms: number, stopAt: number) => {
      const seen: Awaited<ReturnType<typeof server.inject>>[] = [];
      for (const end = Date.now() + ms; Date.now() < end && seen.at(-1)?.statusCode !== stopAt;) {
        seen.push(await server.inject({ method: 'GET', url: '/api' }));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return seen;
    };
    const statuses = (answers: { statusCode: number }[]) => answers.map((a) => a.statusCode);
    expect(statuses(await answersFor(300, 503))).not.toContain(503);

    // When the process is short of CPU: its loop blocked 1.5 s (a loaded CI machine keeps it under 500 ms)
    const blockedUntil = Date.now() + 1500;
    while (Date.now() < blockedUntil);

    // Then it refuses within the next window of the watch, in the API's error shape, but still answers /healthz
    const refused = (await answersFor(1000, 503)).at(-1)!;
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.json()).toMatchObject({ code: 'overloaded', detail: expect.stringMatching(/short of CPU/) });
    expect((await server.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // And, a window later with nothing blocking, it serves again
    expect(statuses(await answersFor(2000, 200)).at(-1)).toBe(200);
  });
});
