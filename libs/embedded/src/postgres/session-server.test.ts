import { PGlite } from '@electric-sql/pglite';
import { connect, type Socket } from 'node:net';
import { Client, Pool } from 'pg';
import { parse as parseBackend, serialize } from 'pg-protocol';
import { startSessionServer, type SessionServer } from './session-server';

/** Real PGlite (in memory) and real `pg` clients: what the services do, many at once. */
let db: PGlite;
let server: SessionServer;
let url: string;

beforeAll(async () => {
  db = await PGlite.create();
  server = await startSessionServer({ db, host: '127.0.0.1', port: 0, maxConnections: 64 });
  url = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
  await db.exec('CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL)');
});

afterAll(async () => {
  await server?.close();
  await db?.close();
});

const connected = async (): Promise<Client> => {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
};

/** A raw protocol client, to send an exchange in pieces as a loaded network delivers it. */
async function rawSession(): Promise<{ socket: Socket; rows: () => Promise<string[]> }> {
  const socket = connect(server.port, '127.0.0.1');
  const values: string[] = [];
  let onReady: (() => void) | null = null;
  void parseBackend(socket, (message) => {
    if (message.name === 'dataRow') values.push(String((message as unknown as { fields: unknown[] }).fields[0]));
    if (message.name === 'readyForQuery') onReady?.();
  });
  const ready = () => new Promise<void>((resolve) => (onReady = resolve));
  const started = ready();
  socket.write(serialize.startup({ user: 'postgres', database: 'postgres' }));
  await started;
  return {
    socket,
    rows: async () => {
      await ready();
      return values.splice(0);
    },
  };
}

describe('PGlite session server', () => {
  it("keeps a client's exchange whole when its messages arrive in pieces", async () => {
    const a = await rawSession();
    const b = await rawSession();
    try {
      const aRows = a.rows();
      a.socket.write(
        Buffer.concat([serialize.parse({ text: "SELECT 'a:' || $1::text" }), serialize.bind({ values: ['1'] })]),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      const bRows = b.rows();
      b.socket.write(
        Buffer.concat([
          serialize.parse({ text: "SELECT 'b:' || $1::text" }),
          serialize.bind({ values: ['2'] }),
          serialize.execute(),
          serialize.sync(),
        ]),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      a.socket.write(Buffer.concat([serialize.execute(), serialize.sync()]));
      expect(await aRows).toEqual(['a:1']);
      expect(await bRows).toEqual(['b:2']);
    } finally {
      a.socket.destroy();
      b.socket.destroy();
    }
  });

  it('gives every parameterised query its own answer, from 32 connections at once', async () => {
    const pool = new Pool({ connectionString: url, max: 32 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 2000 }, (_, i) =>
          pool
            // Texts differ per query, so running one query's Bind against another's Parse shows.
            .query<{ n: number; s: string }>(`SELECT $1::int * 10 + ${i % 10} AS n, $2::text || '${i % 7}' AS s`, [
              i,
              `v${i}`,
            ])
            .then(
              (r) => r.rows[0],
              (e: Error) => ({ error: e.message }),
            ),
        ),
      );
      const wrong = answers.filter((a, i) => !(a && 'n' in a && a.n === i * 10 + (i % 10) && a.s === `v${i}${i % 7}`));
      expect(wrong).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it("keeps one client's failure to that client", async () => {
    const pool = new Pool({ connectionString: url, max: 16 });
    try {
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          i % 10 === 0
            ? pool.query('SELECT $1::text', ['a\u0000b']).then(
                () => 'poison accepted',
                () => 'refused',
              )
            : pool.query<{ n: number }>('SELECT $1::int AS n', [i]).then(
                (r) => (r.rows[0]?.n === i ? 'ok' : `wrong ${r.rows[0]?.n}`),
                (e: Error) => `failed: ${e.message}`,
              ),
        ),
      );
      expect(results.filter((r, i) => r !== (i % 10 === 0 ? 'refused' : 'ok'))).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('holds the session for a client inside a transaction; the others wait and then see its commit', async () => {
    const a = await connected();
    const b = await connected();
    try {
      await a.query('BEGIN');
      await a.query('INSERT INTO items VALUES ($1, $2)', [1, 'one']);
      let bDone = false;
      const bRead = b.query<{ n: string }>('SELECT count(*) AS n FROM items WHERE id = 1').then((r) => {
        bDone = true;
        return r.rows[0]?.n;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(bDone).toBe(false);
      await a.query('INSERT INTO items VALUES ($1, $2)', [2, 'two']);
      await a.query('COMMIT');
      expect(await bRead).toBe('1');
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('rolls back what a vanished client left open, and lets the others go on', async () => {
    const a = await connected();
    const b = await connected();
    try {
      a.on('error', () => undefined); // its connection is cut below, on purpose
      await a.query('BEGIN');
      await a.query('INSERT INTO items VALUES ($1, $2)', [3, 'three']);
      const waiting = b.query<{ n: string }>('SELECT count(*) AS n FROM items WHERE id = 3');
      (a as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      expect((await waiting).rows[0]?.n).toBe('0');
      expect(db.isInTransaction()).toBe(false);
    } finally {
      await a.end().catch(() => undefined);
      await b.end();
    }
  });

  it('delivers a notification to the connections listening on its channel', async () => {
    const listener = await connected();
    const other = await connected();
    const notifier = await connected();
    try {
      const heard: string[] = [];
      const heardElsewhere: string[] = [];
      listener.on('notification', (n) => heard.push(`${n.channel}:${n.payload}`));
      other.on('notification', (n) => heardElsewhere.push(`${n.channel}:${n.payload}`));
      notifier.on('notification', (n) => heardElsewhere.push(`${n.channel}:${n.payload}`));
      await listener.query('LISTEN link_created');
      await notifier.query('SELECT pg_notify($1, $2)', ['link_created', 'abc']);
      // A listener's pending notifications reach it before its next answer.
      await listener.query('SELECT 1');
      await other.query('SELECT 1');
      expect(heard).toEqual(['link_created:abc']);
      expect(heardElsewhere).toEqual([]);
      await listener.query('UNLISTEN link_created');
      await notifier.query('SELECT pg_notify($1, $2)', ['link_created', 'def']);
      await listener.query('SELECT 1');
      expect(heard).toEqual(['link_created:abc']);
    } finally {
      await Promise.all([listener.end(), other.end(), notifier.end()]);
    }
  });

  it('gives a listening connection the session before the crowd queued ahead of it', async () => {
    // A redirector renews its lease on its listening connection: behind a pool's crowd it came back too late.
    await db.exec('CREATE TABLE turns (seq serial PRIMARY KEY, who text NOT NULL)');
    const holder = await connected();
    const crowd = await Promise.all([1, 2, 3].map(() => connected()));
    const listener = await connected();
    try {
      await listener.query('LISTEN link_changed');
      await holder.query('BEGIN');
      const queued = crowd.map((c, i) => c.query('INSERT INTO turns (who) VALUES ($1)', [`crowd${i + 1}`]));
      const renewal = listener.query('INSERT INTO turns (who) VALUES ($1)', ['listener']);
      // A round trip of the holder's: the others' queries have reached the server meanwhile.
      await holder.query('SELECT 1');
      await holder.query('COMMIT');
      await Promise.all([...queued, renewal]);
      const { rows } = await holder.query<{ who: string }>('SELECT who FROM turns ORDER BY seq');
      expect(rows.map((r) => r.who)).toEqual(['listener', 'crowd1', 'crowd2', 'crowd3']);
    } finally {
      await Promise.all([holder, listener, ...crowd].map((c) => c.end()));
    }
  });
});

describe('PGlite session server with a password', () => {
  let locked: SessionServer;
  const password = 'made-for-this-run';
  const at = (secret: string | null) =>
    `postgres://postgres${secret === null ? '' : `:${secret}`}@127.0.0.1:${locked.port}/postgres`;

  beforeAll(async () => {
    locked = await startSessionServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8, password });
  });
  afterAll(() => locked?.close());

  it('serves a client that gives it', async () => {
    const client = new Client({ connectionString: at(password) });
    await client.connect();
    try {
      expect((await client.query<{ n: number }>('SELECT 41 + 1 AS n')).rows).toEqual([{ n: 42 }]);
    } finally {
      await client.end();
    }
  });

  it('runs nothing for a client that gives another, or none', async () => {
    for (const secret of ['wrong', '']) {
      const client = new Client({ connectionString: at(secret) });
      await expect(client.connect()).rejects.toMatchObject({ code: '28P01' });
      await client.end().catch(() => undefined);
    }
  });

  it('runs nothing a client sends before its password', async () => {
    // Startup, then a query where the password should be: refused, and the query never reaches the session.
    const socket = connect(locked.port, '127.0.0.1');
    const answers: string[] = [];
    void parseBackend(socket, (message) => answers.push(message.name));
    socket.write(serialize.startup({ user: 'postgres', database: 'postgres' }));
    socket.write(serialize.query('CREATE TABLE sneaked (n int)'));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(answers).toEqual(['authenticationCleartextPassword', 'error']);
    const tables = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'sneaked'",
    );
    expect(tables.rows).toEqual([{ n: 0 }]);
  });
});
