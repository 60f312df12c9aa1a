import { Pool, type PoolClient } from 'pg';
import { migrate, MIGRATIONS_DIR } from '@shortlink/postgres';
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
});
