import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_PARTITIONS, partitionOfKey } from '@shortlink/event-log';
import { eventually } from '@shortlink/testing';
import { startLinkSystem, type LinkSystem } from './support/link-system';

/**
 * The preview flow end to end: POST a link, the worker consumes its
 * LinkCreated from Kafka, fetches a local page, appends the outcome, the
 * projector stores it, and GET /api/v1/links/:slug shows it.
 */

interface Destination {
  origin: string;
  hits: () => number;
  release: () => void;
  close(): Promise<void>;
}

async function startDestination(): Promise<Destination> {
  let hits = 0;
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    hits++;
    if (req.url?.startsWith('/held')) {
      held.push(res); // answered only when the test releases it
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head>
      <title>Fallback title</title>
      <meta property="og:title" content="The &quot;real&quot; title">
      <meta property="og:description" content="  What the page is about. ">
      <meta property="og:image" content="/cover.png">
      </head><body></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const release = () => {
    for (const res of held.splice(0)) {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Finally</title>');
    }
  };
  return {
    origin,
    hits: () => hits,
    release,
    close: () =>
      new Promise((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function create(system: LinkSystem, url: string, customSlug: string) {
  const res = await system.app.inject({
    method: 'POST',
    url: '/api/v1/links',
    headers: { authorization: `Bearer ${system.proKey}`, 'content-type': 'application/json' },
    payload: { url, customSlug },
  });
  expect(res.statusCode).toBe(201);
  return res.json<Record<string, unknown>>();
}

async function settledPreview(system: LinkSystem, slug: string) {
  return eventually(async () => {
    const res = await system.app.inject({
      method: 'GET',
      url: `/api/v1/links/${slug}`,
      headers: { authorization: `Bearer ${system.proKey}` },
    });
    const body = res.json();
    return body.preview.status === 'pending' ? undefined : body;
  });
}

describe('with private networks allowed (local testing)', () => {
  let system: LinkSystem;
  let destination: Destination;

  beforeAll(async () => {
    destination = await startDestination();
    // A held page is held until the test releases it: with the worker's 5 s a fetch, two tries gave
    // up on it (failed) before a loaded machine had the links after it through, where `pending` is asserted.
    system = await startLinkSystem({ previews: { allowPrivateNetworks: true, timeoutMs: 120_000 } });
  });

  afterAll(async () => {
    await system?.close();
    await destination?.close();
  });

  it('fetches the preview in the background and serves it with the link', async () => {
    const created = await create(system, `${destination.origin}/article`, 'preview-og');
    expect(created).not.toHaveProperty('preview');
    const body = await settledPreview(system, 'preview-og');
    expect(body).toEqual({
      ...created,
      preview: {
        status: 'ready',
        title: 'The "real" title',
        description: 'What the page is about.',
        image: `${destination.origin}/cover.png`,
        fetchedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      },
    });
    const stored = await system.infra.pool.query('SELECT final_url FROM link_previews WHERE link_id = $1', [
      created.id,
    ]);
    expect(stored.rows).toEqual([{ final_url: `${destination.origin}/article` }]);
  });

  it('answers the create at once while the destination is still loading', async () => {
    const before = destination.hits();
    await create(system, `${destination.origin}/held`, 'preview-held');
    // The worker is waiting on the page, and the link already exists and reads as pending.
    await eventually(async () => (destination.hits() > before ? true : undefined));
    const pending = await system.app.inject({
      method: 'GET',
      url: '/api/v1/links/preview-held',
      headers: { authorization: `Bearer ${system.proKey}` },
    });
    expect(pending.json().preview.status).toBe('pending');
    destination.release();
    expect((await settledPreview(system, 'preview-held')).preview).toMatchObject({ status: 'ready', title: 'Finally' });
  });

  it('reads on past a link whose destination does not answer: the links after it in its partition get theirs', async () => {
    await create(system, `${destination.origin}/held?stuck`, 'preview-stuck');
    // Links keyed into the same partition as the stuck one, after it
    const partition = partitionOfKey('preview-stuck', DEFAULT_PARTITIONS.links);
    const after = Array.from({ length: 200 }, (_, i) => `preview-after-${i}`)
      .filter((slug) => partitionOfKey(slug, DEFAULT_PARTITIONS.links) === partition)
      .slice(0, 3);
    expect(after).toHaveLength(3);
    for (const slug of after) await create(system, `${destination.origin}/article?${slug}`, slug);
    for (const slug of after) expect((await settledPreview(system, slug)).preview.status).toBe('ready');
    const stuck = await system.app.inject({
      method: 'GET',
      url: '/api/v1/links/preview-stuck',
      headers: { authorization: `Bearer ${system.proKey}` },
    });
    expect(stuck.json().preview.status).toBe('pending');
    destination.release();
    expect((await settledPreview(system, 'preview-stuck')).preview).toMatchObject({
      status: 'ready',
      title: 'Finally',
    });
  });
});

describe('with the default policy (private networks refused)', () => {
  let system: LinkSystem;
  let destination: Destination;

  beforeAll(async () => {
    destination = await startDestination();
    system = await startLinkSystem({ previews: { allowPrivateNetworks: false } });
  });

  afterAll(async () => {
    await system?.close();
    await destination?.close();
  });

  it('records a loopback destination as failed without ever requesting it', async () => {
    const created = await create(system, `${destination.origin}/article`, 'preview-local');
    const body = await settledPreview(system, 'preview-local');
    expect(body.preview).toEqual({
      status: 'failed',
      title: null,
      description: null,
      image: null,
      fetchedAt: expect.any(String),
    });
    const stored = await system.infra.pool.query('SELECT reason FROM link_previews WHERE link_id = $1', [created.id]);
    expect(stored.rows[0].reason).toMatch(/^blocked_address/);
    expect(destination.hits()).toBe(0);
  });
});
