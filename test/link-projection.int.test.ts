import type { Producer } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { createEvent, encodeEvent, type LinkCreated, type LinkUpdated } from '@shortlink/events';
import { waitForGroupToCatchUp } from '@shortlink/event-log';
import { projectorModule, startLinkSystem, type LinkSystem } from './support/link-system';
import { eventually } from '@shortlink/testing';
import { rebuildLinks } from '@shortlink/service-projector';
import { createClaimSettler } from '@shortlink/service-write-api';

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

async function create(customSlug: string) {
  const res = await system.app.inject({
    method: 'POST',
    url: '/api/v1/links',
    headers: { authorization: `Bearer ${system.proKey}`, 'content-type': 'application/json' },
    payload: { url: `https://example.com/${customSlug}`, customSlug, tag: 't' },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

interface LinkRow {
  slug: string;
  link_id: string;
}

async function snapshot() {
  const { rows } = await system.infra.pool.query<LinkRow>(
    'SELECT slug, link_id, account_id, destination_url, tag, created_at, event_id FROM links ORDER BY slug',
  );
  return rows;
}

async function projected(count: number) {
  return eventually(
    async () => {
      const rows = await snapshot();
      return rows.length === count ? rows : undefined;
    },
    30_000,
    `${count} projected links`,
  );
}

/** Waits until a consumer group has committed the end of the links topic. */
async function caughtUp(groupId: string) {
  const admin = system.infra.log.admin();
  await admin.connect();
  try {
    expect(await waitForGroupToCatchUp(admin, groupId, system.infra.names.topics.links, 30_000)).toBe(true);
  } finally {
    await admin.disconnect();
  }
}

describe('link projection', () => {
  const slugs = ['proj-a', 'proj-b', 'proj-c', 'proj-d', 'proj-e'];
  let before: LinkRow[];

  beforeAll(async () => {
    for (const slug of slugs) await create(slug);
    before = await projected(slugs.length);
  });

  it('fills the links table from the topic, and commits the claims', async () => {
    expect(before.map((r) => r.slug)).toEqual(slugs);
    const { rows } = await system.infra.pool.query(
      "SELECT count(*)::int AS n FROM slug_claims WHERE state = 'committed'",
    );
    expect(rows[0].n).toBe(slugs.length);
  });

  it('changes nothing when a projector replays the whole topic from the start', async () => {
    const replayGroup = `${system.infra.names.groups.linkProjector}.replay-${randomUUID()}`;
    const replay = projectorModule(system.infra, {
      names: { ...system.infra.names, groups: { ...system.infra.names.groups, linkProjector: replayGroup } },
    });
    await replay.start!();
    try {
      await caughtUp(replayGroup);
    } finally {
      await replay.stop!();
    }
    expect(await snapshot()).toEqual(before);
  });

  it('resumes where it stopped after a restart, with nothing projected twice', async () => {
    await system.modules[0]!.stop!();
    await create('while-down');
    const restarted = projectorModule(system.infra);
    await restarted.start!();
    system.modules[0] = restarted; // so that close() stops this one
    const rows = await projected(slugs.length + 1);
    expect(rows.filter((r) => slugs.includes(r.slug))).toEqual(before);
  });

  it('rebuilds the table from the topic', async () => {
    await caughtUp(system.infra.names.groups.linkProjector);
    const expected = await snapshot();
    await system.infra.pool.query('DELETE FROM links');
    const result = await rebuildLinks(system.infra.log, system.infra.pool, system.infra.names);
    expect(result.applied).toBeGreaterThanOrEqual(expected.length);
    expect(await snapshot()).toEqual(expected);
  });

  it('parks a malformed event on the dead-letter topic and goes on', async () => {
    const { topics } = system.infra.names;
    await producer.send({
      topic: topics.links,
      acks: -1,
      messages: [{ key: 'junk', value: '{"type":"LinkCreated"}' }],
    });
    await create('after-junk');
    await eventually(async () => ((await snapshot()).some((r) => r.slug === 'after-junk') ? true : undefined));

    const consumer = system.infra.kafka.consumer({ groupId: `dlq-reader-${randomUUID()}` });
    const parked: { reason: string; source: string }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: topics.deadLetter, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        parked.push({
          reason: message.headers!['dlq-reason']!.toString(),
          source: message.headers!['dlq-source-topic']!.toString(),
        });
      },
    });
    try {
      await eventually(async () => (parked.length > 0 ? true : undefined), 30_000, 'a dead letter');
    } finally {
      await consumer.disconnect();
    }
    expect(parked[0]!.source).toBe(topics.links);
    expect(parked[0]!.reason).toMatch(/invalid-event/);
  });
});

describe('claim settlement', () => {
  function settler() {
    const admin = system.infra.log.admin();
    return {
      admin,
      settle: createClaimSettler({
        pool: system.infra.pool,
        admin,
        linksTopic: system.infra.names.topics.links,
        linkProjectorGroup: system.infra.names.groups.linkProjector,
        staleAfterMs: 60_000,
        catchUpTimeoutMs: 20_000,
        logger: { info() {}, warn() {} },
      }),
    };
  }

  async function pendingClaim(slug: string, linkId: string) {
    const { rows } = await system.infra.pool.query('SELECT id FROM accounts LIMIT 1');
    await system.infra.pool.query(
      `INSERT INTO slug_claims (slug, link_id, account_id, destination_url, tag, created_at, state, claimed_at)
       VALUES ($1, $2, $3, 'https://example.com/crashed', NULL, now(), 'pending', now() - interval '5 minutes')`,
      [slug, linkId, rows[0].id],
    );
    return rows[0].id as string;
  }

  it('frees a slug whose writer crashed before appending, so it can be created again', async () => {
    await pendingClaim('crashed-1', randomUUID());
    const blocked = await system.app.inject({
      method: 'POST',
      url: '/api/v1/links',
      headers: { authorization: `Bearer ${system.proKey}`, 'content-type': 'application/json' },
      payload: { url: 'https://example.com/x', customSlug: 'crashed-1' },
    });
    expect(blocked.statusCode).toBe(409);

    const { admin, settle } = settler();
    await admin.connect();
    try {
      const outcome = await settle();
      expect(outcome.released).toContain('crashed-1');
    } finally {
      await admin.disconnect();
    }
    await create('crashed-1');
  });

  it('commits a claim whose event reached the topic although its writer never heard back', async () => {
    const linkId = randomUUID();
    const accountId = await pendingClaim('crashed-2', linkId);
    const event = createEvent<LinkCreated>(
      'LinkCreated',
      1,
      { linkId, accountId, slug: 'crashed-2', destinationUrl: 'https://example.com/crashed', tag: null },
      { eventId: randomUUID(), occurredAt: new Date().toISOString() },
    );
    await producer.send({
      topic: system.infra.names.topics.links,
      acks: -1,
      messages: [{ key: 'crashed-2', value: encodeEvent(event) }],
    });

    const { admin, settle } = settler();
    await admin.connect();
    try {
      const outcome = await settle();
      expect(outcome.released).not.toContain('crashed-2');
    } finally {
      await admin.disconnect();
    }
    const { rows } = await system.infra.pool.query("SELECT state FROM slug_claims WHERE slug = 'crashed-2'");
    expect(rows).toEqual([{ state: 'committed' }]);
    const redirect = await system.app.inject({ method: 'GET', url: '/crashed-2' });
    expect(redirect.headers.location).toBe('https://example.com/crashed');
  });
});

describe('link changes in the projection', () => {
  const send = (method: 'PATCH' | 'DELETE', slug: string, payload?: unknown) =>
    system.app.inject({
      method,
      url: `/api/v1/links/${slug}`,
      headers: {
        authorization: `Bearer ${system.proKey}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      payload: payload === undefined ? undefined : JSON.stringify(payload),
    });
  const row = async (slug: string) =>
    (
      await system.infra.pool.query<{ destination_url: string; tag: string | null; version: number; deleted: boolean }>(
        'SELECT destination_url, tag, version, deleted_at IS NOT NULL AS deleted FROM links WHERE slug = $1',
        [slug],
      )
    ).rows[0];

  it('applies LinkUpdated and LinkDeleted by version: a replayed or older event changes nothing, nor does a rebuild', async () => {
    const slug = 'proj-chg';
    const link = await create(slug);
    expect((await send('PATCH', slug, { url: 'https://example.com/v2', tag: null })).statusCode).toBe(200);
    expect((await send('DELETE', slug)).statusCode).toBe(204);
    const final = { destination_url: 'https://example.com/v2', tag: null, version: 3, deleted: true };
    await eventually(async () => ((await row(slug))?.version === 3 ? true : undefined), 30_000, 'the delete projected');
    expect(await row(slug)).toEqual(final);

    // The outbox relay may append a change again, late: it must not bring the link back.
    const late = createEvent<LinkUpdated>(
      'LinkUpdated',
      1,
      {
        linkId: link.id,
        accountId: (await system.infra.pool.query('SELECT account_id FROM slug_claims WHERE slug = $1', [slug])).rows[0]
          .account_id,
        slug,
        version: 2,
        destinationUrl: 'https://example.com/v2',
        tag: null,
        changedFields: ['destinationUrl', 'tag'],
      },
      { eventId: randomUUID(), occurredAt: new Date().toISOString() },
    );
    await producer.send({
      topic: system.infra.names.topics.links,
      messages: [{ key: slug, value: encodeEvent(late) }],
    });
    await caughtUp(system.infra.names.groups.linkProjector);
    expect(await row(slug)).toEqual(final);

    await rebuildLinks(system.infra.log, system.infra.pool, system.infra.names);
    expect(await row(slug)).toEqual(final);
  });
});
