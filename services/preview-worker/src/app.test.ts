import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  createEvent,
  encodeEvent,
  type LinkCreated,
  type LinkDeleted,
  type LinkPreviewFailed,
  type LinkPreviewFetched,
  type LinkUpdated,
} from '@shortlink/events';
import { HANDLED_LATER, type LogRecord, type RecordInHand } from '@shortlink/event-log';
import { createMetricsRegistry } from '@shortlink/metrics';
import { previewPipeline } from './app';
import type { FetchedPage, PageFetcher } from './fetch/fetch-page';
import { PreviewFetchError } from './fetch/fetch-errors';
import type { RetryPolicy } from './preview/fetch-preview';

const context = { topic: 'links', partition: 0, offset: '0' };
const NOW = new Date('2026-11-22T10:00:00.000Z');
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

type Event = LinkCreated | LinkUpdated | LinkDeleted | LinkPreviewFetched;
/** A record as the log gives it: the value, the type header, the time the link was created. */
const recordOf = (event: Event | Buffer, createdAt = NOW.getTime()): LogRecord => ({
  offset: '0',
  key: null,
  value: Buffer.isBuffer(event) ? event : encodeEvent(event),
  timestamp: String(createdAt),
  headers: Buffer.isBuffer(event) ? {} : { 'event-type': Buffer.from(event.type) },
});

const linkCreated = createEvent<LinkCreated>(
  'LinkCreated',
  1,
  {
    linkId: randomUUID(),
    accountId: randomUUID(),
    slug: 'my-link',
    destinationUrl: 'https://example.com/a',
    tag: null,
  },
  { eventId: randomUUID(), occurredAt: NOW.toISOString() },
);

/** A record in hand as the consumer gives it: whether it was handled or released, and how often. */
function inHand() {
  const settled: ('handled' | 'released')[] = [];
  const ticket: RecordInHand = {
    handled: () => void settled.push('handled'),
    release: () => void settled.push('released'),
  };
  return { ticket, settled };
}

/** The pipeline over a fake page fetcher and a fake append, with a pinned id and clock. */
function pipelineWith(
  fetchPage: PageFetcher,
  append: (events: (LinkPreviewFetched | LinkPreviewFailed)[]) => Promise<void>,
  options: { cacheMs?: number; retry?: RetryPolicy } = {},
) {
  return previewPipeline({
    fetchPage,
    retry: options.retry ?? { maxAttempts: 2, firstBackoffMs: 0 },
    concurrency: 8,
    perHostConcurrency: 4,
    cacheMs: options.cacheMs ?? 0,
    append,
    logger: quiet,
    metrics: createMetricsRegistry({ processMetrics: false }),
    group: 'previews',
    topic: 'links',
    now: () => NOW,
    newId: () => '00000000-0000-4000-8000-000000000001',
  });
}

const page = (html: string): FetchedPage => ({
  finalUrl: 'https://example.com/final',
  contentType: 'text/html',
  body: Readable.from([Buffer.from(html)]),
});

/** Polls in real time: the outcome appender's backoff sleeps on node:timers/promises, which fake timers leave real. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await sleep(5);
  if (!check()) throw new Error('condition not met in time');
}

/**
 * For a test whose appends all succeed: the fetches' round trips, the
 * backoffs between attempts and the test's waits run on fake timers; streams
 * (nextTick, setImmediate) as ever.
 */
const useFakeTime = () => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
afterEach(() => jest.useRealTimers());
/** A simulated fetch's round trip: a timer, run as the test lets time pass. */
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The test lets this much (fake) time pass. */
const pass = (ms: number) => jest.advanceTimersByTimeAsync(ms);
/** Lets fake time pass, 5 ms at a time, until `check` holds (or 2 s of it have passed). */
async function untilInFakeTime(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await pass(5);
  if (!check()) throw new Error('condition not met in time');
}

describe('previewPipeline', () => {
  it('takes a LinkCreated, appends its LinkPreviewFetched with the id and clock given, then handles it', async () => {
    const appended: unknown[] = [];
    const { take } = pipelineWith(
      async () => page('<title>Hello</title>'),
      async (events) => void appended.push(...events),
    );
    const { ticket, settled } = inHand();
    expect(take(recordOf(linkCreated), context, ticket)).toBe(HANDLED_LATER);
    await until(() => settled.length > 0);
    expect(settled).toEqual(['handled']);
    expect(appended).toEqual([
      {
        eventId: '00000000-0000-4000-8000-000000000001',
        type: 'LinkPreviewFetched',
        schemaVersion: 1,
        occurredAt: NOW.toISOString(),
        data: {
          linkId: linkCreated.data.linkId,
          slug: 'my-link',
          title: 'Hello',
          description: null,
          image: null,
          finalUrl: 'https://example.com/final',
          linkVersion: 1,
          destinationUrl: 'https://example.com/a',
        },
      },
    ]);
  });

  it('fetches again when a change gives the link a new destination, and names that state in the outcome', async () => {
    const fetched: string[] = [];
    const appended: LinkPreviewFetched[] = [];
    const { take } = pipelineWith(
      async (url) => {
        fetched.push(url);
        return page('<title>New</title>');
      },
      async (events) => void appended.push(...(events as LinkPreviewFetched[])),
    );
    const { linkId, accountId, slug } = linkCreated.data;
    const changed = (version: number, changedFields: ('destinationUrl' | 'tag')[]) =>
      createEvent<LinkUpdated>(
        'LinkUpdated',
        1,
        { linkId, accountId, slug, version, destinationUrl: 'https://example.com/b', tag: 'x', changedFields },
        { eventId: randomUUID(), occurredAt: NOW.toISOString() },
      );
    expect(take(recordOf(changed(2, ['tag'])), context, inHand().ticket)).toMatchObject({ kind: 'drop' });
    const { ticket, settled } = inHand();
    expect(take(recordOf(changed(3, ['destinationUrl', 'tag'])), context, ticket)).toBe(HANDLED_LATER);
    const deleted = createEvent<LinkDeleted>(
      'LinkDeleted',
      1,
      { linkId, accountId, slug, version: 4 },
      { eventId: randomUUID(), occurredAt: NOW.toISOString() },
    );
    expect(take(recordOf(deleted), context, inHand().ticket)).toMatchObject({ kind: 'drop' });
    await until(() => settled.length > 0);
    expect(fetched).toEqual(['https://example.com/b']);
    expect(appended).toMatchObject([
      { type: 'LinkPreviewFetched', data: { title: 'New', linkVersion: 3, destinationUrl: 'https://example.com/b' } },
    ]);
  });

  it('appends a LinkPreviewFailed with the reason when the fetch fails for good', async () => {
    const appended: unknown[] = [];
    const { take } = pipelineWith(
      async () => {
        throw new PreviewFetchError('http_404', false, 'the server answered HTTP 404');
      },
      async (events) => void appended.push(...events),
    );
    const { ticket, settled } = inHand();
    take(recordOf(linkCreated), context, ticket);
    await until(() => settled.length > 0);
    expect(appended).toMatchObject([
      { type: 'LinkPreviewFailed', data: { reason: 'http_404: the server answered HTTP 404' } },
    ]);
  });

  it('leaves another account its share of the slots while one account’s links wait on servers that never answer', async () => {
    useFakeTime();
    // Given account A's links, each to a server of its own that never answers (the fetch gives up after a while),
    // made before and after account B's link to a page that answers
    const appended: string[] = [];
    const fetched: string[] = [];
    const { take } = pipelineWith(
      async (url) => {
        fetched.push(url);
        if (url.startsWith('https://example.com/')) return page('<title>B</title>');
        await tick(20);
        throw new PreviewFetchError('timeout', true, 'the page did not arrive in time');
      },
      async (events) => void appended.push(...events.map((e) => e.data.slug)),
      { retry: { maxAttempts: 3, firstBackoffMs: 0 } },
    );
    const a = randomUUID();
    const b = randomUUID();
    const created = (accountId: string, slug: string, destinationUrl: string) =>
      createEvent<LinkCreated>(
        'LinkCreated',
        1,
        { linkId: randomUUID(), accountId, slug, destinationUrl, tag: null },
        { eventId: randomUUID(), occurredAt: NOW.toISOString() },
      );
    for (let i = 0; i < 40; i++) {
      take(
        recordOf(created(a, `a-${i}`, `https://hang-${i}.example/`), NOW.getTime() - 2_000 + i),
        context,
        inHand().ticket,
      );
    }
    // When B's link comes, and A's newer links after it
    take(recordOf(created(b, 'b-link', 'https://example.com/b'), NOW.getTime() - 1_000), context, inHand().ticket);
    for (let i = 40; i < 120; i++) {
      take(
        recordOf(created(a, `a-${i}`, `https://hang-${i}.example/`), NOW.getTime() - 1_000 + i),
        context,
        inHand().ticket,
      );
    }
    await untilInFakeTime(() => appended.includes('b-link'));
    // Then B's fetch ran at the first slot A freed: A, which had all 8 slots, holds at most half of them while
    // B waits
    expect(fetched.indexOf('https://example.com/b')).toBe(8);
    await untilInFakeTime(() => appended.length === 121);
  });

  it('drops its own outcomes and malformed messages without fetching', async () => {
    useFakeTime();
    const fetchPage = jest.fn(async () => page(''));
    const { take } = pipelineWith(fetchPage, async () => undefined);
    const own = createEvent<LinkPreviewFetched>(
      'LinkPreviewFetched',
      1,
      {
        linkId: linkCreated.data.linkId,
        slug: 'my-link',
        title: null,
        description: null,
        image: null,
        finalUrl: 'https://e.com',
      },
      { eventId: randomUUID(), occurredAt: NOW.toISOString() },
    );
    expect(take(recordOf(own), context, inHand().ticket)).toMatchObject({
      kind: 'drop',
      reason: 'not for this worker: LinkPreviewFetched',
    });
    expect(take(recordOf(Buffer.from('{nope')), context, inHand().ticket)).toMatchObject({ kind: 'drop' });
    await pass(10);
    expect(fetchPage).not.toHaveBeenCalled();
  });

  it('handles a link only once its outcome’s append succeeds, trying a failed append again', async () => {
    let failures = 2;
    const appended: unknown[] = [];
    const { take } = pipelineWith(
      async () => page('<title>x</title>'),
      async (events) => {
        if (failures-- > 0) throw new Error('broker unavailable');
        appended.push(...events);
      },
    );
    const { ticket, settled } = inHand();
    take(recordOf(linkCreated), context, ticket);
    await until(() => settled.length > 0);
    expect(settled).toEqual(['handled']);
    expect(appended).toHaveLength(1);
  });

  it('fetches once for links to the same destination, and appends an outcome for each link, its own', async () => {
    useFakeTime();
    // Given a page that takes a moment, and three links to it: two at once, one after the fetch
    let fetches = 0;
    const appended: LinkPreviewFetched[] = [];
    const { take } = pipelineWith(
      async () => {
        fetches++;
        await tick(20);
        return page('<title>Shared</title>');
      },
      async (events) => void appended.push(...(events as LinkPreviewFetched[])),
      { cacheMs: 60_000 },
    );
    const linkTo = (slug: string) =>
      createEvent<LinkCreated>(
        'LinkCreated',
        1,
        { ...linkCreated.data, linkId: randomUUID(), slug },
        { eventId: randomUUID(), occurredAt: NOW.toISOString() },
      );
    const [a, b, c] = [linkTo('link-a'), linkTo('link-b'), linkTo('link-c')];
    const settled = [inHand(), inHand(), inHand()];
    take(recordOf(a), context, settled[0]!.ticket);
    take(recordOf(b), context, settled[1]!.ticket);
    await untilInFakeTime(() => appended.length === 2);
    take(recordOf(c), context, settled[2]!.ticket);
    await untilInFakeTime(() => appended.length === 3);
    // Then the page was fetched once, and each link got its own outcome, and was handled once
    expect(fetches).toBe(1);
    expect(appended.map((e) => [e.data.slug, e.data.linkId, e.data.title, e.data.destinationUrl])).toEqual([
      ['link-a', a.data.linkId, 'Shared', 'https://example.com/a'],
      ['link-b', b.data.linkId, 'Shared', 'https://example.com/a'],
      ['link-c', c.data.linkId, 'Shared', 'https://example.com/a'],
    ]);
    await untilInFakeTime(() => settled.every((s) => s.settled.length > 0));
    expect(settled.map((s) => s.settled)).toEqual([['handled'], ['handled'], ['handled']]);
  });

  it('keeps nothing of a record while its link waits: neither the record nor its buffers', async () => {
    useFakeTime();
    // Given a link whose destination never answers
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { take } = pipelineWith(
      () => new Promise<FetchedPage>(() => undefined),
      async () => undefined,
    );
    const { ticket, settled } = inHand();
    const refs = ((record: LogRecord) => {
      expect(take(record, context, ticket)).toBe(HANDLED_LATER);
      return [new WeakRef(record), new WeakRef(record.value!)];
    })(recordOf(linkCreated));
    // Then once taken, the record can be collected while the link still waits
    await pass(10);
    gc();
    expect(refs.map((r) => r.deref())).toEqual([undefined, undefined]);
    expect(settled).toEqual([]);
  });
});

describe('previewPipeline while the worker stops', () => {
  it('gives up a link waiting for a retry at once and appends nothing, so it is read again after the restart', async () => {
    useFakeTime();
    const appended: unknown[] = [];
    const pipeline = pipelineWith(
      async () => {
        throw new PreviewFetchError('timeout', true, 'the server did not answer in time');
      },
      async (events) => void appended.push(...events),
      { retry: { maxAttempts: 3, firstBackoffMs: 60_000 } },
    );
    const { ticket, settled } = inHand();
    pipeline.take(recordOf(linkCreated), context, ticket);
    await pass(20);
    pipeline.stop();
    expect(settled).toEqual(['released']);
    await pass(20);
    expect(appended).toEqual([]);
    expect(settled).toEqual(['released']);
  });
});
