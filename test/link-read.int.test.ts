import type { Producer } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { createEvent, encodeEvent, type LinkPreviewFailed, type LinkPreviewFetched } from '@shortlink/events';
import { eventually } from '@shortlink/testing';
import { startLinkSystem, type LinkSystem } from './support/link-system';

let system: LinkSystem;
let producer: Producer;

beforeAll(async () => {
  system = await startLinkSystem();
  producer = system.infra.kafka.producer();
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await system?.close();
});

const read = (slug: string, key: string | null = system.proKey) =>
  system.app.inject({
    method: 'GET',
    url: `/api/v1/links/${slug}`,
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
  });

async function append(event: LinkPreviewFetched | LinkPreviewFailed) {
  await producer.send({
    topic: system.infra.names.topics.links,
    acks: -1,
    messages: [{ key: event.data.slug, value: encodeEvent(event) }],
  });
}

describe('GET /api/v1/links/:slug', () => {
  let created: Record<string, unknown>;

  beforeAll(async () => {
    const res = await system.app.inject({
      method: 'POST',
      url: '/api/v1/links',
      headers: { authorization: `Bearer ${system.proKey}`, 'content-type': 'application/json' },
      payload: { url: 'https://example.com/article', customSlug: 'read-me', tag: 'blog' },
    });
    created = res.json();
  });

  it('returns the Link object of the creation response, with a pending preview', async () => {
    const res = await read('read-me');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ...created,
      preview: { status: 'pending', title: null, description: null, image: null, fetchedAt: null },
    });
  });

  it('shows a fetched preview, and never lets an older outcome overwrite a newer one', async () => {
    const linkId = created.id as string;
    const fetchedAt = new Date(Date.now() - 1000).toISOString();
    await append(
      createEvent<LinkPreviewFetched>(
        'LinkPreviewFetched',
        1,
        {
          linkId,
          slug: 'read-me',
          title: 'An article',
          description: 'About things',
          image: 'https://example.com/cover.png',
          finalUrl: 'https://example.com/article',
        },
        { eventId: randomUUID(), occurredAt: fetchedAt },
      ),
    );
    const ready = await eventually(async () => {
      const body = (await read('read-me')).json();
      return body.preview.status === 'ready' ? body : undefined;
    });
    expect(ready.preview).toEqual({
      status: 'ready',
      title: 'An article',
      description: 'About things',
      image: 'https://example.com/cover.png',
      fetchedAt,
    });

    // An outcome from before the fetched one arrives late: nothing changes.
    await append(
      createEvent<LinkPreviewFailed>(
        'LinkPreviewFailed',
        1,
        { linkId, slug: 'read-me', reason: 'timeout' },
        { eventId: randomUUID(), occurredAt: new Date(Date.now() - 60_000).toISOString() },
      ),
    );
    // A newer failure does replace it.
    const failedAt = new Date().toISOString();
    await append(
      createEvent<LinkPreviewFailed>(
        'LinkPreviewFailed',
        1,
        { linkId, slug: 'read-me', reason: 'destination answered 410' },
        { eventId: randomUUID(), occurredAt: failedAt },
      ),
    );
    const failed = await eventually(async () => {
      const body = (await read('read-me')).json();
      return body.preview.status === 'failed' ? body : undefined;
    });
    expect(failed.preview).toEqual({
      status: 'failed',
      title: null,
      description: null,
      image: null,
      fetchedAt: failedAt,
    });
  });

  it('answers its owner 503 for a link whose create is not settled, never 404; another account 404', async () => {
    // Given a link whose claim is pending again and whose projection is gone: a 201 sent before its claim's commit landed
    const res = await system.app.inject({
      method: 'POST',
      url: '/api/v1/links',
      headers: { authorization: `Bearer ${system.proKey}`, 'content-type': 'application/json' },
      payload: { url: 'https://example.com/unsettled', customSlug: 'read-unsettled' },
    });
    expect(res.statusCode).toBe(201);
    const { pool } = system.infra;
    const projected = async () =>
      (await pool.query('SELECT 1 FROM links WHERE slug = $1', ['read-unsettled'])).rowCount === 1 ? true : undefined;
    await eventually(projected, 10_000, 'the link to be projected');
    await pool.query(`UPDATE slug_claims SET state = 'pending' WHERE slug = 'read-unsettled'`);
    await pool.query(`DELETE FROM links WHERE slug = 'read-unsettled'`);
    // When its owner and another account read it and its analytics
    const analytics = (key: string) =>
      system.app.inject({
        method: 'GET',
        url: '/api/v1/links/read-unsettled/analytics?range=7d',
        headers: { authorization: `Bearer ${key}` },
      });
    const notSettled = {
      error: 'This link’s creation is not confirmed yet. Try again in a moment.',
      code: 'temporarily_unavailable',
      detail: 'The link was created moments ago and its create is still being confirmed.',
    };
    // Then the owner is told to try again, the other account that there is no such link
    for (const answer of [await read('read-unsettled'), await analytics(system.proKey)]) {
      expect([answer.statusCode, answer.headers['retry-after'], answer.json()]).toEqual([503, '2', notSettled]);
    }
    for (const answer of [await read('read-unsettled', system.freeKey), await analytics(system.freeKey)]) {
      expect([answer.statusCode, answer.json()]).toEqual([
        404,
        {
          error: 'Link not found',
          code: 'not_found',
          detail: 'This account has no link "read-unsettled" (or it was deleted).',
        },
      ]);
    }
    // And once its claim is committed, the owner reads it
    await pool.query(`UPDATE slug_claims SET state = 'committed' WHERE slug = 'read-unsettled'`);
    expect((await read('read-unsettled')).json()).toMatchObject({ slug: 'read-unsettled' });
  });

  it('answers 404 for unknown slugs and for another account’s link, and 401 without a key', async () => {
    expect((await read('no-such-link')).statusCode).toBe(404);
    const other = await read('read-me', system.freeKey);
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({
      error: 'Link not found',
      code: 'not_found',
      detail: 'This account has no link "read-me" (or it was deleted).',
    });
    const anonymous = await read('read-me', null);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer');
  });
});
