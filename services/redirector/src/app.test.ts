import { buildProcessServer, createServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { createRedirector } from './app';
import { LinkCache } from './link-cache';
import { registerRedirectorMetrics, timeLookups } from './redirector-metrics';

describe('redirector metrics', () => {
  it('shows the click pipeline and link cache counters at the process /metrics, under their documented names', async () => {
    // Given a redirector whose click queue and cache have counted some work
    const cache = new LinkCache({
      lookup: async (slug) =>
        slug === 'known' ? { slug, location: 'https://example.com', linkId: 'l', accountId: 'a' } : null,
      maxEntries: 10,
      negativeTtlMs: 1000,
    });
    const clickQueue = {
      depth: 2,
      stats: { queued: 7, sent: 5, dropped: 1, rejected: 2, failedSends: 0 },
      workerRestarts: 3,
      flush: async () => undefined,
    };
    const metrics = createMetricsRegistry({ processMetrics: false });
    registerRedirectorMetrics(metrics, { clicks: clickQueue, cache });
    const app = await buildProcessServer(
      [createRedirector({ cache, clickQueue })],
      { name: 'test', trustProxy: false, logger: false, metrics },
      () => true,
    );
    // When a link is redirected twice (a miss, then a hit) and /metrics is read
    expect((await app.inject({ method: 'GET', url: '/known' })).statusCode).toBe(302);
    expect((await app.inject({ method: 'GET', url: '/known' })).statusCode).toBe(302);
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    // Then the counters the bench and the chaos tool read are there, unlabelled, as before
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('shortlink_clicks_queued_total 7\n');
    expect(res.body).toContain('shortlink_clicks_sent_total 5\n');
    expect(res.body).toContain('shortlink_clicks_dropped_total 1\n');
    expect(res.body).toContain('shortlink_clicks_rejected_total 2\n');
    expect(res.body).toContain('shortlink_click_sends_failed_total 0\n');
    expect(res.body).toContain('shortlink_click_worker_restarts_total 3\n');
    expect(res.body).toContain('# TYPE shortlink_click_queue_depth gauge\nshortlink_click_queue_depth 2\n');
    expect(res.body).toContain('shortlink_link_cache_hits_total 1\n');
    expect(res.body).toContain('shortlink_link_cache_misses_total 1\n');
    expect(res.body).toContain('shortlink_link_cache_entries 1\n');
    // And the redirects are measured by route pattern, never by slug
    expect(res.body).toContain(
      'shortlink_http_request_duration_seconds_count{method="GET",route="/:slug",status="302"} 2',
    );
    expect(res.body).not.toContain('/known');
    await app.close();
  });

  it('keep counting up as the queue counts, and never go down when a sink stops', async () => {
    const metrics = createMetricsRegistry({ processMetrics: false });
    const stats = { queued: 1, sent: 0, dropped: 0, rejected: 0, failedSends: 0 };
    const cache = { size: 0, stats: { hits: 0, misses: 0 } };
    const stop = registerRedirectorMetrics(metrics, { clicks: { depth: 0, stats, workerRestarts: 0 }, cache });
    const queued = async () => (await metrics.getSingleMetricAsString('shortlink_clicks_queued_total')).split('\n')[2];
    expect(await queued()).toBe('shortlink_clicks_queued_total 1');
    stats.queued = 5;
    expect(await queued()).toBe('shortlink_clicks_queued_total 5');
    stop();
    stats.queued = 0;
    expect(await queued()).toBe('shortlink_clicks_queued_total 5');
  });
});

describe('cache miss timing', () => {
  it('times every lookup by its outcome, a failed one included, and passes its answer on', async () => {
    const metrics = createMetricsRegistry({ processMetrics: false });
    const link = { slug: 'known', location: 'https://example.com/', linkId: 'l', accountId: 'a' };
    const lookup = timeLookups(metrics, async (slug) => {
      if (slug === 'broken') throw new Error('connection refused');
      return slug === 'known' ? link : null;
    });
    expect(await lookup('known')).toBe(link);
    expect(await lookup('known')).toBe(link);
    expect(await lookup('other')).toBeNull();
    await expect(lookup('broken')).rejects.toThrow('connection refused');
    const text = await metrics.getSingleMetricAsString('shortlink_link_lookup_duration_seconds');
    expect(text).toContain('shortlink_link_lookup_duration_seconds_count{outcome="found"} 2\n');
    expect(text).toContain('shortlink_link_lookup_duration_seconds_count{outcome="not_found"} 1\n');
    expect(text).toContain('shortlink_link_lookup_duration_seconds_count{outcome="failed"} 1');
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
      detail: 'The link store did not answer and this redirector holds no copy of the link.',
    });
    failing = false;
    const back = await app.inject({ method: 'GET', url: '/abc12' });
    expect(back.statusCode).toBe(302);
    expect(back.headers.location).toBe('https://example.com/');
    await app.close();
  });
});

describe("a QR code's scan", () => {
  it('is redirected without its marker, the rest of the query passed on, and handed to the recorder as a scan', async () => {
    const cache = new LinkCache({
      lookup: async (slug) => ({ slug, location: 'https://example.com/menu?lang=en', linkId: 'l', accountId: 'a' }),
      maxEntries: 10,
      negativeTtlMs: 60_000,
    });
    const seen: [string, boolean][] = [];
    const app = createServer({ logger: false, trustProxy: false });
    const onRedirect = (request: { url: string }, _link: unknown, scanned: boolean) =>
      void seen.push([request.url, scanned]);
    await app.register(createRedirector({ cache, onRedirect }).routes!);
    const location = async (url: string) => (await app.inject({ method: 'GET', url })).headers.location;
    expect(await location('/abc12?qr=1')).toBe('https://example.com/menu?lang=en');
    expect(await location('/abc12?qr=1&table=4')).toBe('https://example.com/menu?lang=en&table=4');
    expect(await location('/abc12?table=4&qr=1&lang=de')).toBe('https://example.com/menu?table=4&lang=de');
    // Any other qr is the visitor's, and the destination's
    expect(await location('/abc12?qr=2')).toBe('https://example.com/menu?lang=en&qr=2');
    expect(seen).toEqual([
      ['/abc12?qr=1', true],
      ['/abc12?qr=1&table=4', true],
      ['/abc12?table=4&qr=1&lang=de', true],
      ['/abc12?qr=2', false],
    ]);
    await app.close();
  });
});
