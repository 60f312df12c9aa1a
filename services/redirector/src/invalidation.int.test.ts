import { Client, Pool } from 'pg';

/** pg's own \`query\`, called through by the spy below. */
const originalQuery = Object.getOwnPropertyDescriptor(Client.prototype, 'query')?.value as (
  this: Client,
  ...args: unknown[]
) => unknown;
import { CHANNELS, migrate, MIGRATIONS_DIR } from '@shortlink/postgres';
import { createScratchPostgres, eventually, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import { listenForLinkChanges, type LinkListener, type TrustLoss } from './invalidation';
import { LinkCache } from './link-cache';

const env = infraEnv(process.env);
const quiet = { warn: () => undefined };

describe('link notifications (real Postgres)', () => {
  let db: ScratchDatabase;
  let writer: Pool;
  let cache: LinkCache;
  let listener: LinkListener;

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    writer = new Pool({ connectionString: db.url, max: 2 });
    // The listener holds its lease in `redirector_leases`.
    await migrate(writer, MIGRATIONS_DIR);
    cache = new LinkCache({ lookup: async () => null, maxEntries: 10_000, negativeTtlMs: 60_000 });
    listener = listenForLinkChanges(db.url, cache, quiet);
    await listener.start();
  });

  /**
   * A listener renewing every 100 ms a lease of `leaseMs`, on a cache of its own in which every slug is a
   * link (what it holds shows whether it was emptied), and the losses of trust it told.
   */
  function leasedListener(leaseMs: number) {
    const own = new LinkCache({
      lookup: async (slug) => ({ slug, linkId: 'l1', accountId: 'a1', location: 'https://example.com/' }),
      maxEntries: 100,
      negativeTtlMs: 60_000,
    });
    const losses: TrustLoss[] = [];
    const onTrustLost = (reason: TrustLoss) => void losses.push(reason);
    return {
      own,
      losses,
      listener: listenForLinkChanges(db.url, own, quiet, { leaseMs, renewEveryMs: 100, onTrustLost }),
    };
  }

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
    const stopped = listenForLinkChanges(db.url, cache, quiet);
    await stopped.start();
    expect(await stopped.catchUp()).toBe(true);
    await stopped.stop();
    expect(await stopped.catchUp()).toBe(false);
  });

  it('is trusted while leased; a lost connection ends the trust at once, and the cache is emptied before it returns', async () => {
    const { own, losses, listener: leased } = leasedListener(3000);
    await leased.start();
    try {
      expect(leased.trusted()).toBe(true);
      await own.resolve('held1');
      expect(own.peek('held1')).toMatchObject({ slug: 'held1' });
      // Postgres drops the listening connection (a restart, a failover, an operator).
      await writer.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'redirector-listen' AND datname = current_database()`,
      );
      await eventually(async () => (leased.trusted() ? undefined : true));
      await eventually(async () => (leased.trusted() ? true : undefined), 15_000);
      expect(own.peek('held1')).toBeUndefined();
      expect(losses).toEqual(['connection_lost']);
    } finally {
      await leased.stop();
    }
    expect(leased.trusted()).toBe(false);
    expect(losses).toEqual(['connection_lost']); // a clean stop is no loss
  });

  it('stops trusting the cache when a renewal comes back after the lease ran out, tells it once, and trusts it again after', async () => {
    const { own, losses, listener: late } = leasedListener(600);
    await late.start();
    const locker = new Client({ connectionString: db.url });
    await locker.connect();
    try {
      await own.resolve('held2');
      // Postgres holds the renewals (a lock, as a busy or frozen server would): several queue behind the first.
      await locker.query('BEGIN');
      await locker.query('SELECT listener_id FROM redirector_leases FOR UPDATE');
      await eventually(async () => (late.trusted() ? undefined : true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await locker.query('COMMIT');
      await eventually(async () => (late.trusted() ? true : undefined), 15_000);
      expect(own.peek('held2')).toBeUndefined();
      expect(losses).toEqual(['lease_late']);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
      await late.stop();
    }
  });

  it('sends one statement at a time on its connection, however confirmations, renewals and catch-ups overlap', async () => {
    // pg 8 queues a query sent while others wait, with a deprecation warning; pg 9 refuses it.
    // Its condition, checked as each statement is sent on the listening connection:
    const sentWhileOthersWaited: string[] = [];
    const query = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const self = this as unknown as { _queryQueue: unknown[]; connectionParameters: { application_name?: string } };
      if (self.connectionParameters.application_name === 'redirector-listen' && self._queryQueue.length > 0) {
        sentWhileOthersWaited.push(String(typeof args[0] === 'string' ? args[0] : 'a query object'));
      }
      return originalQuery.apply(this, args) as never;
    });
    const own = new LinkCache({ lookup: async () => null, maxEntries: 100, negativeTtlMs: 60_000 });
    const busy = listenForLinkChanges(db.url, own, quiet, { leaseMs: 3000, renewEveryMs: 5 });
    try {
      await busy.start();
      await Promise.all([
        ...Array.from({ length: 300 }, (_, i) =>
          writer.query('SELECT pg_notify($1, $2)', [CHANNELS.linkChanged, `change-${i} slug-${i % 7}`]),
        ),
        ...Array.from({ length: 100 }, async () => expect(await busy.catchUp()).toBe(true)),
      ]);
      await new Promise((r) => setTimeout(r, 200));
      expect(sentWhileOthersWaited.slice(0, 3)).toEqual([]);
    } finally {
      query.mockRestore();
      await busy.stop();
    }
  });

  it('listens again at once when told Postgres is back, not when its backoff ends', async () => {
    const own = new LinkCache({ lookup: async () => null, maxEntries: 100, negativeTtlMs: 60_000 });
    // A backoff longer than the test: only listenNow can bring the listener back in time.
    const backingOff = listenForLinkChanges(db.url, own, quiet, { firstRetryMs: 600_000 });
    await backingOff.start();
    try {
      await writer.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'redirector-listen' AND datname = current_database()`,
      );
      await eventually(async () => (backingOff.trusted() ? undefined : true));
      backingOff.listenNow();
      await eventually(async () => (backingOff.trusted() ? true : undefined), 15_000);
      expect(await backingOff.catchUp()).toBe(true);
    } finally {
      await backingOff.stop();
    }
  });
});
