import { randomUUID } from 'node:crypto';
import { Client, Pool, type PoolClient } from 'pg';
import { migrate, MIGRATIONS_DIR, renewRedirectorLease } from '@shortlink/postgres';
import { createScratchPostgres, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import { redirectorAcks, type RedirectorAcks } from './redirector-acks';

const env = infraEnv(process.env);

describe('redirector confirmations (real Postgres)', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  let acks: RedirectorAcks;
  const warnings: string[] = [];

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    // The write API's shared pool, here of one connection that a wait for a connection gives up on quickly.
    pool = new Pool({ connectionString: db.url, max: 1, connectionTimeoutMillis: 200 });
    await migrate(pool, MIGRATIONS_DIR);
    acks = redirectorAcks({ connectionString: db.url, pool, logger: { warn: (_, msg) => void warnings.push(msg) } });
    await acks.start();
  });

  afterAll(async () => {
    await acks?.stop();
    await pool?.end();
    await db?.drop();
  });

  it('reads who must confirm a change on its own connection, so a pool busy with other changes does not hold it up', async () => {
    // Given a pool whose every connection is taken (changes waiting for a link's lock)
    const held: PoolClient = await pool.connect();
    try {
      // When a committed change settles with its redirectors (none are leased)
      const outcome = await acks.expect('change-1').settle();

      // Then the leases were read: no redirector to wait for, and no wait for every lease to run out
      expect(outcome).toEqual({ leased: 0, confirmed: 0, lapsed: 0 });
      expect(warnings).toEqual([]);
    } finally {
      held.release();
    }
  });

  it('reads the leases for a crowd of changes one read at a time, shared by the changes waiting for it', async () => {
    // Given the confirmations' connection, its queries watched as they are sent to Postgres
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called on its own client, and put back as it was
    const query = Client.prototype.query;
    let running = 0;
    let mostAtOnce = 0;
    let reads = 0;
    const watched = function (
      this: Client & { connectionParameters: { application_name?: string } },
      ...args: unknown[]
    ) {
      const result = (query as (...a: unknown[]) => unknown).apply(this, args);
      if (!(result instanceof Promise) || this.connectionParameters.application_name !== 'write-api-acks')
        return result;
      reads++;
      mostAtOnce = Math.max(mostAtOnce, ++running);
      return result.finally(() => running--);
    };
    Client.prototype.query = watched as typeof query;
    try {
      // When 40 committed changes settle at once
      const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => acks.expect(`crowd-${i}`).settle()));

      // Then each is settled, the connection never had two queries at once, and a few reads served them all
      expect(outcomes.every((o) => o.leased === 0 && o.lapsed === 0)).toBe(true);
      expect(mostAtOnce).toBe(1);
      expect(reads).toBeLessThanOrEqual(2);
      expect(warnings).toEqual([]);
    } finally {
      Client.prototype.query = query;
    }
  });

  it('says changes that waited for a lease to run out at once, then together, not a line each', async () => {
    // Given a redirector leased for 300 ms that confirms nothing (killed, or frozen)
    const said: { fields: object; msg: string }[] = [];
    const own = redirectorAcks({
      connectionString: db.url,
      pool,
      logger: { warn: (fields, msg) => void said.push({ fields, msg }) },
    });
    await own.start();
    const silent = new Client({ connectionString: db.url });
    const silentId = randomUUID();
    await silent.connect();
    try {
      // When five changes wait for it, one after the other within a few seconds (its lease taken again for each)
      for (let i = 0; i < 5; i++) {
        await renewRedirectorLease(silent, silentId, 300);
        expect(await own.expect(`lapsed-${i}`).settle()).toMatchObject({ leased: 1, lapsed: 1 });
      }
      await own.stop();

      // Then the first is said at once, the other four in one line (here at the stop, before the 5 s are up)
      expect(said.map(({ fields, msg }) => [msg, (fields as { changes: number }).changes])).toEqual([
        ['link changes waited for redirector leases to run out', 1],
        ['link changes waited for redirector leases to run out', 4],
      ]);
    } finally {
      await own.stop();
      await silent.end();
    }
  });
});
