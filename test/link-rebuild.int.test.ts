import type { Pool } from 'pg';
import { randomUUID } from 'node:crypto';
import { encodeEvent, type LinkEvent } from '@shortlink/events';
import { waitForGroupToCatchUp, type KafkaNames, type OutgoingRecord } from '@shortlink/event-log';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { rebuildLinks } from '@shortlink/service-projector';
import { createScratchPostgres, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import { openTestInfra, projectorModule, type TestInfra } from './support/link-system';
import { buildOnce } from './support/processes';

/**
 * `npm run rebuild` against the live projector, on real Kafka and Postgres: a stream with changes, deletions, previews
 * (old and new shapes), redelivered copies, second creations of taken slugs, stale changes and junk goes through the
 * real link projector, is rebuilt while that projector runs and more events arrive, and must end exactly as a replay of
 * the whole topic into a fresh database: every column of every row, and the same indexes.
 */

let infra: TestInfra;
let reference: ScratchDatabase;
let referencePool: Pool;

beforeAll(async () => {
  buildOnce(); // the rebuild decodes on a worker thread, which runs the built code
  infra = await openTestInfra();
  reference = await createScratchPostgres(infraEnv(process.env).DATABASE_URL);
  referencePool = await openDatabase({
    connectionString: reference.url,
    max: 4,
    applicationName: 'test',
    migrationsDir: MIGRATIONS_DIR,
  });
});

afterAll(async () => {
  await referencePool?.end();
  await reference?.drop();
  await infra?.close();
});

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Link {
  slug: string;
  linkId: string;
  accountId: string;
  version: number;
}

/**
 * `count` events over `slugs` slugs: mostly creations, changes and preview
 * outcomes in the order the write API and the preview worker append them,
 * with redelivered copies, stale (older) changes, second creations of a taken
 * slug, changes and previews of a link that lost its slug, and junk.
 */
function eventStream(seed: number, slugs: number, count: number, prefix: string): OutgoingRecord[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const links: Link[] = [];
  const sent: OutgoingRecord[] = [];
  let clock = Date.UTC(2026, 0, 1);
  const meta = () => {
    // Instants repeat now and then: preview outcomes are ordered by (version, instant), ties kept first.
    if (next() < 0.8) clock += 1000;
    return { eventId: randomUUID(), occurredAt: new Date(clock).toISOString() };
  };
  const emit = (event: LinkEvent) => sent.push({ key: event.data.slug, value: encodeEvent(event) });
  while (sent.length < count) {
    const roll = next();
    if (links.length < slugs && (roll < 0.25 || links.length === 0)) {
      const link = { slug: `${prefix}-${links.length}`, linkId: randomUUID(), accountId: randomUUID(), version: 1 };
      links.push(link);
      emit({
        ...meta(),
        type: 'LinkCreated',
        schemaVersion: 1,
        data: {
          linkId: link.linkId,
          accountId: link.accountId,
          slug: link.slug,
          destinationUrl: `https://example.com/${link.slug}?tab=a\tb`,
          tag: pick([null, 'spring', 'sum\\mer']),
        },
      });
      continue;
    }
    const link = pick(links);
    if (roll < 0.3 && sent.length > 0) {
      sent.push(pick(sent)); // a redelivered copy, any time later
    } else if (roll < 0.33) {
      // The same slug created again for another link: the first link keeps it.
      const other = { slug: link.slug, linkId: randomUUID(), accountId: link.accountId };
      emit({
        ...meta(),
        type: 'LinkCreated',
        schemaVersion: 1,
        data: { ...other, destinationUrl: 'https://example.com/usurper', tag: null },
      });
      if (next() < 0.5) {
        emit({
          ...meta(),
          type: 'LinkDeleted',
          schemaVersion: 1,
          data: { linkId: other.linkId, accountId: other.accountId, slug: other.slug, version: 9 },
        });
      }
    } else if (roll < 0.55) {
      // Mostly the next version; sometimes a stale one relayed late.
      const version = next() < 0.8 ? ++link.version : Math.max(2, link.version - 1);
      emit({
        ...meta(),
        type: 'LinkUpdated',
        schemaVersion: 1,
        data: {
          linkId: link.linkId,
          accountId: link.accountId,
          slug: link.slug,
          version,
          destinationUrl: `https://example.com/${link.slug}/v${version}`,
          tag: pick([null, 'autumn', `v${version}`]),
          changedFields: ['destinationUrl', 'tag'],
        },
      });
    } else if (roll < 0.62) {
      emit({
        ...meta(),
        type: 'LinkDeleted',
        schemaVersion: 1,
        data: { linkId: link.linkId, accountId: link.accountId, slug: link.slug, version: ++link.version },
      });
    } else if (roll < 0.97) {
      // Outcomes from before previews named their link's state, and after.
      const named =
        next() < 0.5
          ? {}
          : {
              linkVersion: Math.max(1, link.version - (next() < 0.3 ? 1 : 0)),
              destinationUrl: `https://example.com/${link.slug}/v${link.version}`,
            };
      emit(
        next() < 0.7
          ? {
              ...meta(),
              type: 'LinkPreviewFetched',
              schemaVersion: 1,
              data: {
                linkId: link.linkId,
                slug: link.slug,
                title: `Title ${Math.floor(next() * 5)}`,
                description: pick([null, 'About\nit']),
                image: null,
                finalUrl: `https://example.com/${link.slug}/final`,
                ...named,
              },
            }
          : {
              ...meta(),
              type: 'LinkPreviewFailed',
              schemaVersion: 1,
              data: { linkId: link.linkId, slug: link.slug, reason: pick(['timeout', 'refused']), ...named },
            },
      );
    } else {
      sent.push({ key: link.slug, value: pick(['{"type":"LinkCreated"}', 'not json']) });
    }
  }
  return sent;
}

async function append(records: OutgoingRecord[]): Promise<void> {
  const producer = infra.log.producer();
  await producer.connect();
  try {
    for (let i = 0; i < records.length; i += 500) {
      await producer.append(infra.names.topics.links, records.slice(i, i + 500));
    }
  } finally {
    await producer.disconnect();
  }
}

function linkProjector(pool: Pool, group: string) {
  const names: KafkaNames = { ...infra.names, groups: { ...infra.names.groups, linkProjector: group } };
  return projectorModule(infra, { env: { PROJECTIONS: 'links' }, names, pool });
}

async function caughtUp(group: string): Promise<void> {
  const admin = infra.log.admin();
  await admin.connect();
  try {
    expect(await waitForGroupToCatchUp(admin, group, infra.names.topics.links, 60_000)).toBe(true);
  } finally {
    await admin.disconnect();
  }
}

/** Every column of both projections, and their indexes and constraints. */
async function snapshot(pool: Pool) {
  const links = await pool.query(
    `SELECT slug, link_id, account_id, destination_url, tag, created_at, event_id, source_partition,
            source_offset, version, updated_at, deleted_at FROM links ORDER BY slug`,
  );
  const previews = await pool.query(
    `SELECT link_id, status, title, description, image, final_url, reason, occurred_at, event_id, link_version,
            destination_url FROM link_previews ORDER BY link_id`,
  );
  const indexes = await pool.query(
    `SELECT tablename, indexname, indexdef FROM pg_indexes
      WHERE tablename IN ('links', 'link_previews') ORDER BY indexname`,
  );
  const constraints = await pool.query(
    `SELECT conrelid::regclass::text AS t, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE conrelid IN ('links'::regclass, 'link_previews'::regclass) ORDER BY conname`,
  );
  return { links: links.rows, previews: previews.rows, indexes: indexes.rows, constraints: constraints.rows };
}

it('rebuilds beside the running projector what a fresh replay of the topic projects', async () => {
  const first = eventStream(7, 120, 2500, 'rb');
  await append(first);
  const liveGroup = `${infra.names.groups.linkProjector}.live`;
  const live = linkProjector(infra.pool, liveGroup);
  await live.start!();
  try {
    await caughtUp(liveGroup);
    const before = await snapshot(infra.pool);
    expect(before.links.length).toBeGreaterThan(100);
    expect(before.previews.length).toBeGreaterThan(50);
    expect(before.links.some((r) => r.deleted_at !== null)).toBe(true);

    // A link whose writer stopped after its append: the rebuild commits its claim, as the projector does.
    const pending = before.links[0]!;
    await infra.pool.query(
      `INSERT INTO slug_claims (slug, link_id, account_id, destination_url, tag, created_at, state)
       VALUES ($1, $2, $3, 'https://example.com/x', NULL, now(), 'pending')`,
      [pending.slug, pending.link_id, pending.account_id],
    );

    // Events the live projector applies to the old tables while the rebuild runs: the rebuild must replay them.
    const result = await rebuildLinks(infra.log, infra.pool, infra.names, {
      maxBytesPerPartition: 4096,
      writers: 2,
      onPhase: async (phase) => {
        if (phase === 'swapped') return;
        await append(eventStream(phase === 'loaded' ? 8 : 9, 150, 400, phase === 'loaded' ? 'rb' : 'rc'));
        await caughtUp(liveGroup);
      },
    });
    expect(result.applied).toBeGreaterThan(2500);
    expect(result.skipped).toBeGreaterThan(0);
    const claim = await infra.pool.query('SELECT state FROM slug_claims WHERE slug = $1', [pending.slug]);
    expect(claim.rows).toEqual([{ state: 'committed' }]);

    await append(eventStream(10, 40, 200, 'rd'));
    await caughtUp(liveGroup);
  } finally {
    await live.stop!();
  }
  const rebuilt = await snapshot(infra.pool);

  const referenceGroup = `${infra.names.groups.linkProjector}.reference`;
  const replay = linkProjector(referencePool, referenceGroup);
  await replay.start!();
  try {
    await caughtUp(referenceGroup);
  } finally {
    await replay.stop!();
  }
  const expected = await snapshot(referencePool);
  expect(rebuilt.links.length).toBeGreaterThan(200);
  expect(rebuilt).toEqual(expected);

  // Again, from the same topic and with nothing running: the same rows.
  await rebuildLinks(infra.log, infra.pool, infra.names);
  expect(await snapshot(infra.pool)).toEqual(expected);
}, 240_000);

it('refuses a second rebuild of the same database while one runs, and leaves the projection as it was', async () => {
  const before = await snapshot(infra.pool);
  let second: Promise<unknown> | undefined;
  await rebuildLinks(infra.log, infra.pool, infra.names, {
    onPhase: async (phase) => {
      if (phase === 'loaded') second = rebuildLinks(infra.log, infra.pool, infra.names).catch((e: Error) => e);
    },
  });
  expect(await second).toEqual(new Error('another rebuild of this database is running'));
  expect(await snapshot(infra.pool)).toEqual(before);
}, 120_000);
