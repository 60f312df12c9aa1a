import { createServer } from '@shortlink/http';
import { createRedirector } from './app';
import { LinkCache } from './link-cache';

describe('redirector routes', () => {
  it('exposes the click pipeline counters at /metrics in Prometheus text', async () => {
    const cache = new LinkCache({
      lookup: async (slug) =>
        slug === 'known' ? { slug, location: 'https://example.com', linkId: 'l', accountId: 'a' } : null,
      maxEntries: 10,
      negativeTtlMs: 1000,
    });
    const clickQueue = {
      depth: 2,
      stats: { queued: 7, sent: 5, dropped: 1, failedSends: 0 },
      workerRestarts: 3,
      flush: async () => undefined,
    };
    const module = createRedirector({ cache, clickQueue });
    const app = createServer({ logger: false, trustProxy: false });
    await app.register(module.routes!);
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('shortlink_clicks_queued_total 7\n');
    expect(res.body).toContain('shortlink_clicks_dropped_total 1\n');
    expect(res.body).toContain('shortlink_click_worker_restarts_total 3\n');
    expect(res.body).toContain('# TYPE shortlink_click_queue_depth gauge\nshortlink_click_queue_depth 2\n');
    const redirect = await app.inject({ method: 'GET', url: '/known' });
    expect(redirect.statusCode).toBe(302);
    await app.close();
  });
});

describe('a lookup that fails', () => {
  it('answers 503 with Retry-After, never 404, and is not remembered', async () => {
    let failing = true;
    const cache = new LinkCache({
      lookup: async (slug) => {
        if (failing) throw new Error('connection refused');
        return { slug, location: 'https://example.com/', linkId: 'l', accountId: 'a' };
      },
      maxEntries: 10,
      negativeTtlMs: 60_000,
    });
    const app = createServer({ logger: false, trustProxy: false });
    await app.register(createRedirector({ cache }).routes!);
    const down = await app.inject({ method: 'GET', url: '/abc12' });
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('1');
    expect(down.json()).toEqual({
      error: 'The link cannot be looked up right now. Try again in a moment.',
      code: 'temporarily_unavailable',
    });
    failing = false;
    const back = await app.inject({ method: 'GET', url: '/abc12' });
    expect(back.statusCode).toBe(302);
    expect(back.headers.location).toBe('https://example.com/');
    await app.close();
  });
});
