import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { startPostgresOnThread } from './postgres-on-thread';

// PGlite on its own thread (the built worker under dist/), reached through its socket by real `pg` clients.

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pg-thread-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('PGlite on a thread of its own', () => {
  it('answers many clients at once, each with its own rows, and keeps what it committed after a restart', async () => {
    let pg = await startPostgresOnThread(dir);
    const pool = new Pool({ connectionString: pg.url, max: 8 });
    await pool.query('CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL)');
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => pool.query('INSERT INTO items VALUES ($1, $2)', [i, `item ${i}`])),
    );
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        pool.query<{ label: string }>('SELECT label FROM items WHERE id = $1', [i]),
      ),
    );
    expect(answers.map((a) => a.rows[0]?.label)).toEqual(Array.from({ length: 200 }, (_, i) => `item ${i}`));
    await pool.end();
    await pg.close();

    pg = await startPostgresOnThread(dir);
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    expect((await client.query('SELECT count(*)::int AS n FROM items')).rows).toEqual([{ n: 200 }]);
    await client.end();
    await pg.close();
  });

  it('delivers a notification to the connection that listens', async () => {
    const pg = await startPostgresOnThread(dir);
    const listener = new Client({ connectionString: pg.url });
    const sender = new Client({ connectionString: pg.url });
    await Promise.all([listener.connect(), sender.connect()]);
    await listener.query('LISTEN link_created');
    const heard = new Promise<string | undefined>((resolve) => listener.on('notification', (n) => resolve(n.payload)));
    await sender.query("SELECT pg_notify('link_created', 'abc12')");
    expect(await heard).toBe('abc12');
    await Promise.all([listener.end(), sender.end()]);
    await pg.close();
  });

  it('reports a thread that could not start, and does not hang', async () => {
    // A file where the data directory should be: PGlite cannot create its store there.
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'not-a-dir'), 'x');
    await expect(startPostgresOnThread(join(dir, 'not-a-dir'))).rejects.toThrow(/embedded Postgres/);
  });
});
