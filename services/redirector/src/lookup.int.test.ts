import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { findLinkBySlug, migrate, MIGRATIONS_DIR } from '@shortlink/postgres';
import { createScratchPostgres, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import { postgresLookup } from './lookup';

const env = infraEnv(process.env);

/** A pool that counts the statements it sends: the real pool, each query passed through. */
function countingPool(url: string) {
  const pool = new Pool({ connectionString: url, max: 10 });
  const sent = { statements: 0 };
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    sent.statements++;
    return query(...args);
  };
  return { pool, sent };
}

describe('postgresLookup (real Postgres)', () => {
  let db: ScratchDatabase;
  let writer: Pool;
  // Two accounts side by side, their links alternating: a batch holds both, and each answer must name its own.
  const accounts = [randomUUID(), randomUUID()] as const;
  const accountOf = (slug: string) => accounts[[...slug].reduce((n, c) => n + c.charCodeAt(0), 0) % 2]!;

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    writer = new Pool({ connectionString: db.url, max: 2 });
    await migrate(writer, MIGRATIONS_DIR);
  });

  afterAll(async () => {
    await writer?.end();
    await db?.drop();
  });

  async function project(slug: string, url: string, change: { version?: number; deleted?: boolean } = {}) {
    await writer.query(
      `INSERT INTO links (slug, link_id, account_id, destination_url, created_at, event_id, source_partition, source_offset, version, deleted_at)
       VALUES ($1, $2, $3, $4, now(), $5, 0, 0, $6, $7)`,
      [slug, randomUUID(), accountOf(slug), url, randomUUID(), change.version ?? 1, change.deleted ? new Date() : null],
    );
  }

  async function claim(slug: string, url: string, state: 'pending' | 'committed', version = 1) {
    await writer.query(
      `INSERT INTO slug_claims (slug, link_id, account_id, destination_url, created_at, state, version)
       VALUES ($1, $2, $3, $4, now(), $5, $6)
       ON CONFLICT (slug) DO UPDATE SET destination_url = $4, state = $5, version = $6`,
      [slug, randomUUID(), accountOf(slug), url, state, version],
    );
  }

  it('answers a burst of misses in fewer statements, each slug as it would be answered alone', async () => {
    // Given links in every state a lookup meets
    const slugs: string[] = [];
    for (let i = 0; i < 300; i++) {
      const slug = `burst-${i}`;
      slugs.push(slug);
      switch (i % 6) {
        case 0: // projected
          await project(slug, `https://example.com/${i}`);
          break;
        case 1: // committed, not projected yet
          await claim(slug, `https://example.com/${i}`, 'committed');
          break;
        case 2: // projected, then changed: the newer claim wins
          await project(slug, `https://example.com/old/${i}`);
          await claim(slug, `https://example.com/new/${i}`, 'committed', 2);
          break;
        case 3: // deleted
          await project(slug, `https://example.com/${i}`, { version: 2, deleted: true });
          break;
        case 4: // claimed, never committed
          await claim(slug, `https://example.com/${i}`, 'pending');
          break;
        default: // unknown
      }
    }
    const alone = await Promise.all(slugs.map((slug) => findLinkBySlug(writer, slug)));

    // When all are looked up at once, some twice, and with a slug no store can hold
    const { pool, sent } = countingPool(db.url);
    try {
      const lookup = postgresLookup(pool, 'visitor-secret');
      const asked = [...slugs, ...slugs.slice(0, 50), 'nul\0slug'];
      const answers = await Promise.all(asked.map((slug) => lookup(slug)));

      // Then each is what the slug alone reads, in few statements
      const expected = asked.map((slug) => {
        const link = alone[slugs.indexOf(slug)];
        return link ? { slug, linkId: link.linkId, accountId: link.accountId, location: link.destinationUrl } : null;
      });
      expect(answers).toEqual(expected);
      expect(answers.filter((a) => a !== null)).toHaveLength(150 + 26);
      expect(answers[2]?.location).toBe('https://example.com/new/2');
      const found = answers.filter((a) => a !== null);
      expect(found.map((a) => a.accountId)).toEqual(found.map((a) => accountOf(a.slug)));
      expect(new Set(found.map((a) => a.accountId))).toEqual(new Set(accounts));
      expect(sent.statements).toBeLessThanOrEqual(4 + Math.ceil((asked.length - 4) / 100) + 4);
    } finally {
      await pool.end();
    }
  });

  it('sees a change committed before it was asked, though a batch was under way', async () => {
    const { pool } = countingPool(db.url);
    try {
      const lookup = postgresLookup(pool, 'visitor-secret');
      await project('moving', 'https://example.com/before');
      const early = Array.from({ length: 20 }, (_, i) => lookup(`early-${i}`));
      await claim('moving', 'https://example.com/after', 'committed', 2);
      const late = lookup('moving');
      await Promise.all(early);
      expect((await late)?.location).toBe('https://example.com/after');
    } finally {
      await pool.end();
    }
  });

  it('fails every lookup of a batch when Postgres cannot be reached, never answering "not found"', async () => {
    const pool = new Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', max: 2 });
    try {
      const lookup = postgresLookup(pool, 'visitor-secret');
      const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => lookup(`away-${i}`)));
      expect(results.map((r) => r.status)).toEqual(Array(30).fill('rejected'));
    } finally {
      await pool.end();
    }
  });
});
