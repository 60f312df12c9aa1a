import type { Pool } from 'pg';
import { createScratchPostgres, eventually, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import { createPool } from './pool';
import { CommitUnconfirmed, inTransaction } from './transaction';

const env = infraEnv(process.env);

/**
 * What a transaction's failure says, on a real server: an error the server
 * answered (known not done) goes on as it is; a statement past its bound
 * fails the transaction at the bound and leaves nothing behind. A COMMIT
 * that goes unanswered (CommitUnconfirmed) needs a server that stops
 * answering just then: test/postgres-stall-writes.int.test.ts.
 */
describe('inTransaction (real server)', () => {
  let db: ScratchDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    pool = createPool({ connectionString: db.url, max: 4, applicationName: 'transaction-int-test' });
    await pool.query(
      `CREATE TABLE gadgets (name text NOT NULL,
         CONSTRAINT one_name UNIQUE (name) DEFERRABLE INITIALLY DEFERRED)`,
    );
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  const count = async (name: string) =>
    Number((await pool.query('SELECT count(*) AS n FROM gadgets WHERE name = $1', [name])).rows[0].n);

  it('passes on a COMMIT the server refused (a deferred constraint) as the server said it: known not done', async () => {
    await pool.query(`INSERT INTO gadgets VALUES ('twice')`);
    const refused = inTransaction(
      pool,
      async (client) => {
        await client.query(`INSERT INTO gadgets VALUES ('twice')`);
        await client.query(`INSERT INTO gadgets VALUES ('alongside')`);
      },
      { statementTimeoutMs: 2000 },
    );
    await expect(refused).rejects.toMatchObject({ code: '23505' });
    await expect(refused).rejects.not.toBeInstanceOf(CommitUnconfirmed);
    expect(await count('twice')).toBe(1);
    expect(await count('alongside')).toBe(0);
  });

  it('fails a statement past its bound while the server is still at it, and the server keeps nothing of the transaction', async () => {
    const sleeping = async () =>
      Number(
        (
          await pool.query(
            `SELECT count(*) AS n FROM pg_stat_activity
              WHERE datname = current_database() AND state = 'active' AND query = 'SELECT pg_sleep(3)'`,
          )
        ).rows[0].n,
      );
    const slow = inTransaction(
      pool,
      async (client) => {
        await client.query(`INSERT INTO gadgets VALUES ('slow')`);
        await client.query('SELECT pg_sleep(3)');
      },
      { statementTimeoutMs: 500 },
    );
    await expect(slow).rejects.toThrow('Query read timeout');
    // The caller was answered at the bound: the server is still running the statement.
    expect(await sleeping()).toBe(1);
    // Once it is done, it finds its client gone and rolls back.
    await eventually(async () => ((await sleeping()) === 0 ? true : undefined), 10_000, 'the statement to end');
    expect(await count('slow')).toBe(0);
    // And the pool goes on with connections that work.
    await expect(
      inTransaction(pool, (client) => client.query(`INSERT INTO gadgets VALUES ('after')`)),
    ).resolves.toBeDefined();
    expect(await count('after')).toBe(1);
  });

  it('with commitBy, shares one bound between the wait for a connection and the statements, COMMIT aside', async () => {
    // Given every connection of the pool taken
    const taken = await Promise.all(Array.from({ length: 4 }, () => pool.connect()));
    try {
      // When a transaction that must commit within 300 ms waits for one (the pool itself would wait forever)
      const waiting = inTransaction(pool, (client) => client.query(`INSERT INTO gadgets VALUES ('queued')`), {
        statementTimeoutMs: 5000,
        commitBy: Date.now() + 300,
      });
      // Then it fails as an outage the callers know, without ever running
      await expect(waiting).rejects.toThrow('timeout exceeded when trying to connect');
    } finally {
      for (const client of taken) client.release();
    }
    // And the connection that came later went back to the pool: all four serve again
    const again = await Promise.all(Array.from({ length: 4 }, () => pool.connect()));
    for (const client of again) client.release();
    expect(await count('queued')).toBe(0);

    // And a statement gets what is left of the bound, not its own 5 s
    const started = Date.now();
    const slow = inTransaction(pool, (client) => client.query('SELECT pg_sleep(3)'), {
      statementTimeoutMs: 5000,
      commitBy: Date.now() + 300,
    });
    await expect(slow).rejects.toThrow('Query read timeout');
    expect(Date.now() - started).toBeLessThan(2500);

    // While a transaction within its bound commits as ever, its COMMIT timed by statementTimeoutMs alone
    await expect(
      inTransaction(pool, (client) => client.query(`INSERT INTO gadgets VALUES ('in time')`), {
        statementTimeoutMs: 2000,
        commitBy: Date.now() + 2000,
      }),
    ).resolves.toBeDefined();
    expect(await count('in time')).toBe(1);
  });
});
