import { Pool } from 'pg';
import { CHANNELS } from '@shortlink/postgres';
import { createScratchPostgres, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import { listenForNewLinks, type NewLinkListener } from './invalidation';
import { LinkCache } from './link-cache';

const env = infraEnv(process.env);
const quiet = { warn: () => undefined };

describe('new-link notifications (real Postgres)', () => {
  let db: ScratchDatabase;
  let writer: Pool;
  let cache: LinkCache;
  let listener: NewLinkListener;

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    writer = new Pool({ connectionString: db.url, max: 2 });
    cache = new LinkCache({ lookup: async () => null, maxEntries: 10_000, negativeTtlMs: 60_000 });
    listener = listenForNewLinks(db.url, cache, quiet);
    await listener.start();
  });

  afterAll(async () => {
    await listener?.stop();
    await writer?.end();
    await db?.drop();
  });

  it('has applied every notification committed before catchUp was called once it resolves', async () => {
    // The creating process's 201 leaves when its notify has committed; the
    // next request's catch-up must see it. Repeated: without the barrier the
    // notification usually arrives a little later than the commit's answer.
    for (let i = 0; i < 200; i++) {
      const slug = `barrier-${i}`;
      await cache.resolve(slug);
      expect(cache.peek(slug)).toBeNull();
      await writer.query('SELECT pg_notify($1, $2)', [CHANNELS.linkCreated, slug]);
      expect(await listener.catchUp()).toBe(true);
      expect(cache.peek(slug)).toBeUndefined();
    }
  });

  it('cannot vouch for anything once stopped', async () => {
    const stopped = listenForNewLinks(db.url, cache, quiet);
    await stopped.start();
    expect(await stopped.catchUp()).toBe(true);
    await stopped.stop();
    expect(await stopped.catchUp()).toBe(false);
  });
});
