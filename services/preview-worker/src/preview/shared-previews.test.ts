import { Readable } from 'node:stream';
import type { FetchedPage, PageFetcher } from '../fetch/fetch-page';
import { PreviewFetchError } from '../fetch/fetch-errors';
import { attemptPreview, type PreviewOutcome } from './fetch-preview';
import { createSharedPreviews, hostOf, type PreviewSource } from './shared-previews';

// The backoffs, the simulated fetches' round trips and the test's waits run on fake timers;
// streams (nextTick, setImmediate) run as ever.
beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
afterEach(() => jest.useRealTimers());
/** A simulated fetch's round trip: a timer, run as the test lets time pass. */
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The test lets this much (fake) time pass. */
const pass = (ms: number) => jest.advanceTimersByTimeAsync(ms);

const page = (title: string): FetchedPage => ({
  finalUrl: 'https://example.com/final',
  contentType: 'text/html',
  body: Readable.from([Buffer.from(`<title>${title}</title>`)]),
});

/** Shared previews whose links are names; what each link got (an outcome, or given up) is kept. */
function previewsOver(
  fetchPage: PageFetcher,
  options: {
    cacheMs?: number;
    failureCacheMs?: number;
    perHostConcurrency?: number;
    backoffMs?: number;
    maxAttempts?: number;
    now?: () => number;
  } = {},
) {
  const sources: PreviewSource[] = [];
  const outcomes = new Map<string, PreviewOutcome>();
  const abandoned: string[] = [];
  const deliveries: string[][] = [];
  const previews = createSharedPreviews<string>({
    cacheMs: options.cacheMs ?? 60_000,
    failureCacheMs: options.failureCacheMs ?? 60_000,
    maxCacheBytes: 1024 * 1024,
    concurrency: 16,
    perHostConcurrency: options.perHostConcurrency ?? 4,
    freshMs: 10_000,
    now: options.now,
    attempt: (url, attempt, enterHost) =>
      attemptPreview(
        url,
        attempt,
        fetchPage,
        { maxAttempts: options.maxAttempts ?? 2, firstBackoffMs: options.backoffMs ?? 0 },
        enterHost,
      ),
    deliver: (links, outcome) => {
      deliveries.push([...links]);
      for (const link of links) {
        if (outcomes.has(link)) throw new Error(`${link} delivered twice`);
        outcomes.set(link, outcome);
      }
    },
    abandon: (links) => void abandoned.push(...links),
    onPreview: (source) => void sources.push(source),
  });
  /** The outcome of `link`, once delivered. */
  const outcomeOf = async (link: string): Promise<PreviewOutcome> => {
    for (let i = 0; i < 500 && !outcomes.has(link); i++) await pass(5);
    const outcome = outcomes.get(link);
    if (!outcome) throw new Error(`${link} got no outcome`);
    return outcome;
  };
  return { previews, sources, outcomes, outcomeOf, abandoned, deliveries };
}

describe('createSharedPreviews', () => {
  it('fetches a destination once for the links that wait for it together, and reuses it for the ones after', async () => {
    const fetched: string[] = [];
    const { previews, sources, outcomeOf, deliveries } = previewsOver(async (url) => {
      fetched.push(url);
      await tick(10);
      return page(url.endsWith('/a') ? 'A' : 'B');
    });
    for (const link of ['a1', 'a2', 'a3']) previews.request('https://example.com/a', 1, link, 'account');
    await outcomeOf('a1');
    previews.request('https://example.com/a', 2, 'a4', 'account');
    previews.request('https://example.com/b', 3, 'b1', 'account');
    const titles = await Promise.all(['a1', 'a2', 'a3', 'a4', 'b1'].map(outcomeOf));
    expect(fetched).toEqual(['https://example.com/a', 'https://example.com/b']);
    expect(titles.map((o) => o.kind === 'fetched' && o.title)).toEqual(['A', 'A', 'A', 'A', 'B']);
    expect(sources).toEqual(['fetch', 'shared', 'shared', 'cache', 'fetch']);
    // The links that waited together got it in one delivery; the one after, from the cache at once
    expect(deliveries).toEqual([['a1', 'a2', 'a3'], ['a4'], ['b1']]);
  });

  it('fetches again once the preview is older than the cache time, and keeps a failure a shorter time', async () => {
    // The clock is the test's: how long a request takes on a busy machine does not age the cache.
    let clock = 1_000_000;
    let fetches = 0;
    let fail = true;
    const { previews, outcomeOf } = previewsOver(
      async () => {
        fetches++;
        if (fail) throw new PreviewFetchError('http_404', false, 'the server answered HTTP 404');
        return page('Back');
      },
      { cacheMs: 300, failureCacheMs: 50, now: () => clock },
    );
    let n = 0;
    const previewOf = (url: string) => {
      const link = `link${n++}`;
      previews.request(url, 1, link, 'account');
      return outcomeOf(link);
    };
    expect(await previewOf('https://example.com/x')).toMatchObject({ kind: 'failed' });
    clock += 49;
    expect(await previewOf('https://example.com/x')).toMatchObject({ kind: 'failed' });
    expect(fetches).toBe(1);
    fail = false;
    clock += 2;
    expect(await previewOf('https://example.com/x')).toMatchObject({ kind: 'fetched', title: 'Back' });
    clock += 299;
    expect(await previewOf('https://example.com/x')).toMatchObject({ kind: 'fetched' });
    expect(fetches).toBe(2);
    clock += 2;
    await previewOf('https://example.com/x');
    expect(fetches).toBe(3);
  });

  it('holds no slot of the host during a retry’s backoff, and tries again after it', async () => {
    // Given one slot per host, and a destination that fails once then waits out a long backoff
    const fetched: string[] = [];
    const { previews, outcomeOf } = previewsOver(
      async (url) => {
        fetched.push(url);
        if (url.endsWith('/flaky') && fetched.filter((u) => u === url).length === 1) {
          throw new PreviewFetchError('http_503', true, 'the server answered HTTP 503');
        }
        return page('ok');
      },
      { perHostConcurrency: 1, backoffMs: 300 },
    );
    previews.request('https://example.com/flaky', 1, 'flaky', 'account');
    await pass(20);
    // Then another page of that host is fetched meanwhile
    const started = Date.now();
    previews.request('https://example.com/other', 2, 'other', 'account');
    await outcomeOf('other');
    expect(Date.now() - started).toBeLessThan(200);
    expect(await outcomeOf('flaky')).toMatchObject({ kind: 'fetched' });
    expect(fetched).toEqual(['https://example.com/flaky', 'https://example.com/other', 'https://example.com/flaky']);
  });

  it('gives a transient failure up after the last attempt, and a permanent one at once', async () => {
    const fetched: string[] = [];
    const { previews, outcomeOf } = previewsOver(
      async (url) => {
        fetched.push(url);
        if (url.endsWith('/down')) throw new PreviewFetchError('http_503', true, 'the server answered HTTP 503');
        throw new PreviewFetchError('http_404', false, 'the server answered HTTP 404');
      },
      { maxAttempts: 3 },
    );
    previews.request('https://example.com/down', 1, 'down', 'account');
    previews.request('https://example.com/gone', 1, 'gone', 'account');
    expect(await outcomeOf('down')).toMatchObject({
      kind: 'failed',
      code: 'http_503',
      reason: 'http_503: the server answered HTTP 503 (after 3 attempts)',
      attempts: 3,
    });
    expect(await outcomeOf('gone')).toMatchObject({ kind: 'failed', code: 'http_404', attempts: 1 });
    expect(fetched.filter((u) => u.endsWith('/down'))).toHaveLength(3);
    expect(fetched.filter((u) => u.endsWith('/gone'))).toHaveLength(1);
  });

  it('records an unexpected error as an internal failure of the destination', async () => {
    const { previews, outcomeOf } = previewsOver(async () => {
      throw new TypeError('a bug');
    });
    previews.request('https://example.com/x', 1, 'x', 'account');
    expect(await outcomeOf('x')).toMatchObject({
      kind: 'failed',
      code: 'internal_error',
      reason: 'internal_error: a bug',
    });
  });

  it('gives up the links still waiting when stopped, fetching nothing more, and every link after', async () => {
    // Given one slot, held by a fetch that ends only after the stop, a destination waiting for it,
    // and one in a retry's backoff
    const fetched: string[] = [];
    let finish: () => void = () => undefined;
    const { previews, abandoned, outcomes } = previewsOver(
      async (url) => {
        fetched.push(url);
        if (url.endsWith('/retry')) throw new PreviewFetchError('timeout', true, 'no answer in time');
        return new Promise<FetchedPage>((resolve) => (finish = () => resolve(page('late'))));
      },
      { perHostConcurrency: 1, backoffMs: 50 },
    );
    previews.request('https://retrying.example.com/retry', 1, 'retrying', 'account');
    previews.request('https://example.com/slow', 1, 'slow', 'account');
    previews.request('https://example.com/slow', 2, 'slow-too', 'account');
    previews.request('https://example.com/waiting', 1, 'waiting', 'account');
    await pass(10);
    expect(previews.destinations).toBe(3);
    // When it stops, and the slow fetch ends after
    previews.stop();
    previews.request('https://example.com/after', 1, 'after', 'account');
    finish();
    // Then every link is given up once, none gets an outcome, and nothing more is fetched
    expect([...abandoned].sort()).toEqual(['after', 'retrying', 'slow', 'slow-too', 'waiting']);
    await pass(100);
    expect(fetched).toEqual(['https://retrying.example.com/retry', 'https://example.com/slow']);
    expect(outcomes.size).toBe(0);
    expect(previews.destinations).toBe(0);
  });

  it('counts a fetch redirected to another host against that host: links on many hosts sending to one wait their turn there', async () => {
    // Given one slot a host, and ten links on ten hosts that all redirect to one site
    let atOnce = 0;
    let most = 0;
    const fetchPage: PageFetcher = async (url, enterHost) => {
      if (!url.includes('target.example')) await enterHost?.('target.example', AbortSignal.timeout(5000));
      atOnce++;
      most = Math.max(most, atOnce);
      await tick(20);
      atOnce--;
      return page('Target');
    };
    const { previews, outcomeOf } = previewsOver(fetchPage, { perHostConcurrency: 1 });
    const links = Array.from({ length: 10 }, (_, i) => `https://short${i}.example/go`);
    links.forEach((url, i) => previews.request(url, Date.now(), `link${i}`, 'account'));
    // When every preview is in, the site was asked one at a time
    for (let i = 0; i < links.length; i++)
      await expect(outcomeOf(`link${i}`)).resolves.toMatchObject({ title: 'Target' });
    expect(most).toBe(1);
  });

  it('counts a destination against its host and port', () => {
    expect(hostOf('https://Example.com:8443/a?b')).toBe('example.com:8443');
    expect(hostOf('not a url')).toBe('');
  });
});
