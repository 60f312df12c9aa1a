import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { postgresDomainStore } from '@shortlink/domains';
import { migrate, MIGRATIONS_DIR } from '@shortlink/postgres';
import { createScratchPostgres, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import { buildOnce, ROOT } from './support/processes';

const run = promisify(execFile);

/** `npm run domains`: the operator verifies a claim without DNS, on the Postgres the API uses (a scratch one here). */
describe('npm run domains', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  const cli = (...args: string[]) =>
    run(process.execPath, [join(ROOT, 'libs/domains/dist/domains-cli.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url },
    });
  const account = async () => {
    const id = randomUUID();
    await pool.query(`INSERT INTO accounts (id, name, plan) VALUES ($1, 'x', 'free')`, [id]);
    return id;
  };

  beforeAll(async () => {
    buildOnce();
    db = await createScratchPostgres(infraEnv(process.env).DATABASE_URL);
    pool = new Pool({ connectionString: db.url, max: 2 });
    await migrate(pool, MIGRATIONS_DIR);
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('verifies the one claim of a hostname in any spelling, names the account when several claim it, and lists them', async () => {
    const store = postgresDomainStore(pool);
    const [a, b] = [await account(), await account()];
    await store.create(a, 'links.example.com', 'token-a', 100);
    expect((await cli('verify', 'Links.Example.com.')).stdout).toMatch(
      new RegExp(`^Verified links\\.example\\.com for account ${a} \\(by the operator\\)`),
    );
    expect(await store.find(a, 'links.example.com')).toMatchObject({ verifiedBy: 'operator' });

    await store.create(a, 'go.example.org', 'token-a', 100);
    await store.create(b, 'go.example.org', 'token-b', 100);
    await expect(cli('verify', 'go.example.org')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/2 accounts claim go\.example\.org .*--account/),
    });
    await cli('verify', 'go.example.org', '--account', b);
    // At most one account holds a verified hostname.
    await expect(cli('verify', 'go.example.org', '--account', a)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(new RegExp(`verified by ${b} already`)),
    });

    const listed = JSON.parse((await cli('list', '--json')).stdout) as { hostname: string; status: string }[];
    expect(listed.map((d) => `${d.hostname} ${d.status}`)).toEqual([
      'go.example.org pending',
      'go.example.org verified',
      'links.example.com verified',
    ]);
    expect((await cli('list')).stdout).toMatch(/^HOSTNAME\s+ACCOUNT\s+STATUS\s+VERIFIED BY\s+CREATED\n/);
  });

  it('refuses an unclaimed or hostile hostname with exit code 2', async () => {
    await expect(cli('verify', 'nobody.example.com')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/no account has claimed nobody\.example\.com/),
    });
    await expect(cli('verify', '127.0.0.1')).rejects.toMatchObject({ code: 2 });
    await expect(cli('verify')).rejects.toMatchObject({ code: 2 });
  });
});
