import { randomUUID } from 'node:crypto';
import type { LogRecord } from '@shortlink/kafka';
import {
  createEvent,
  encodeEvent,
  type LinkCreated,
  type LinkDeleted,
  type LinkPreviewFetched,
  type LinkUpdated,
} from '@shortlink/events';
import { createMetricsRegistry } from '@shortlink/metrics';
import { previewHandler, type AppendPreview } from './app';
import type { FetchedPage } from './fetch/fetch-page';
import { PreviewFetchError } from './fetch/fetch-errors';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const context = { topic: 'links', partition: 0, offset: '0' };
const message = (value: Buffer | null) => ({ value }) as LogRecord;
const NOW = new Date('2026-11-22T10:00:00.000Z');

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

function handlerWith(fetchPage: (url: string) => Promise<FetchedPage>, append: AppendPreview) {
  return previewHandler({
    fetchPage,
    append,
    retry: { maxAttempts: 2, firstBackoffMs: 0 },
    sleep: async () => undefined,
    now: () => NOW,
    newId: () => '00000000-0000-4000-8000-000000000001',
    logger: quiet,
    metrics: createMetricsRegistry({ processMetrics: false }),
  });
}

const page = (html: string): FetchedPage => ({
  finalUrl: 'https://example.com/final',
  body: Buffer.from(html),
  contentType: 'text/html',
  truncated: false,
});

describe('previewHandler', () => {
  it('appends a LinkPreviewFetched for a LinkCreated, with the id and clock given', async () => {
    const appended: unknown[] = [];
    const handler = handlerWith(
      async () => page('<title>Hello</title>'),
      async (e) => void appended.push(e),
    );
    await expect(handler(message(encodeEvent(linkCreated)), context)).resolves.toEqual({ kind: 'ok' });
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
    const appended: unknown[] = [];
    const handler = handlerWith(
      async (url) => {
        fetched.push(url);
        return page('<title>New</title>');
      },
      async (e) => void appended.push(e),
    );
    const { linkId, accountId, slug } = linkCreated.data;
    const changed = (version: number, changedFields: ('destinationUrl' | 'tag')[]) =>
      createEvent<LinkUpdated>(
        'LinkUpdated',
        1,
        { linkId, accountId, slug, version, destinationUrl: 'https://example.com/b', tag: 'x', changedFields },
        { eventId: randomUUID(), occurredAt: NOW.toISOString() },
      );
    await expect(handler(message(encodeEvent(changed(2, ['tag']))), context)).resolves.toMatchObject({
      kind: 'drop',
    });
    await expect(handler(message(encodeEvent(changed(3, ['destinationUrl', 'tag']))), context)).resolves.toEqual({
      kind: 'ok',
    });
    const deleted = createEvent<LinkDeleted>(
      'LinkDeleted',
      1,
      { linkId, accountId, slug, version: 4 },
      { eventId: randomUUID(), occurredAt: NOW.toISOString() },
    );
    await expect(handler(message(encodeEvent(deleted)), context)).resolves.toMatchObject({ kind: 'drop' });
    expect(fetched).toEqual(['https://example.com/b']);
    expect(appended).toMatchObject([
      { type: 'LinkPreviewFetched', data: { title: 'New', linkVersion: 3, destinationUrl: 'https://example.com/b' } },
    ]);
  });

  it('appends a LinkPreviewFailed with the reason when the fetch fails for good', async () => {
    const appended: unknown[] = [];
    const handler = handlerWith(
      async () => {
        throw new PreviewFetchError('http_404', false, 'the server answered HTTP 404');
      },
      async (e) => void appended.push(e),
    );
    await handler(message(encodeEvent(linkCreated)), context);
    expect(appended).toMatchObject([
      { type: 'LinkPreviewFailed', data: { reason: 'http_404: the server answered HTTP 404' } },
    ]);
  });

  it('drops its own outcomes and malformed messages without fetching', async () => {
    const fetchPage = jest.fn(async () => page(''));
    const handler = handlerWith(fetchPage, async () => undefined);
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
    await expect(handler(message(encodeEvent(own)), context)).resolves.toMatchObject({ kind: 'drop' });
    await expect(handler(message(Buffer.from('{nope')), context)).resolves.toMatchObject({ kind: 'drop' });
    expect(fetchPage).not.toHaveBeenCalled();
  });

  it('throws when the append fails, so the consumer retries the message', async () => {
    const handler = handlerWith(
      async () => page('<title>x</title>'),
      async () => {
        throw new Error('broker unavailable');
      },
    );
    await expect(handler(message(encodeEvent(linkCreated)), context)).rejects.toThrow('broker unavailable');
  });
});

describe('previewHandler while the worker stops', () => {
  it('ends a backoff between attempts at once and appends nothing, so the link is fetched again after the restart', async () => {
    const stopping = new AbortController();
    const appended: unknown[] = [];
    const handler = previewHandler({
      fetchPage: async () => {
        throw new PreviewFetchError('timeout', true, 'the server did not answer in time');
      },
      append: async (e) => void appended.push(e),
      retry: { maxAttempts: 3, firstBackoffMs: 60_000 },
      signal: stopping.signal,
      logger: quiet,
      metrics: createMetricsRegistry({ processMetrics: false }),
    });
    const handled = handler(message(encodeEvent(linkCreated)), context);
    setTimeout(() => stopping.abort(), 20);
    const started = Date.now();
    await expect(handled).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(appended).toEqual([]);
  });
});
