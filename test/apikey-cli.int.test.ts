import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findAccountByKeyHash, hashApiKey } from '@shortlink/accounts';
import { openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, ROOT } from './support/processes';

const run = promisify(execFile);

describe('npm run apikey', () => {
  let infra: TestInfra;
  const cli = (...args: string[]) =>
    run(process.execPath, [join(ROOT, 'libs/accounts/dist/apikey-cli.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: infra.db.url },
    });

  beforeAll(async () => {
    buildOnce();
    infra = await openTestInfra();
  });

  afterAll(async () => {
    await infra?.close();
  });

  it('creates, lists and revokes keys; the key is printed last and stored only as a hash', async () => {
    const created = await cli('create', '--name', 'Acme integrations', '--plan', 'pro');
    const lines = created.stdout.trim().split('\n');
    const key = lines.at(-1)!;
    expect(key).toMatch(/^slk_[A-Za-z0-9_-]{32}$/);

    const account = await findAccountByKeyHash(infra.pool, hashApiKey(key));
    expect(account).toMatchObject({ name: 'Acme integrations', plan: 'pro' });
    const stored = await infra.pool.query('SELECT * FROM api_keys');
    expect(JSON.stringify(stored.rows)).not.toContain(key);

    const [keyRow] = (await infra.pool.query<{ id: string }>('SELECT id FROM api_keys')).rows;
    const listed = await cli('list');
    expect(listed.stdout).toMatch(/^KEY ID\s+PREFIX\s+NAME\s+ACCOUNT\s+PLAN\s+CREATED\s+STATUS\n/);
    expect(listed.stdout).toContain(keyRow!.id);
    expect(listed.stdout).toContain('active');
    expect(listed.stdout).not.toContain(key);
    const asJson = JSON.parse((await cli('list', '--json')).stdout) as { id: string; plan: string; revokedAt: null }[];
    expect(asJson).toEqual([expect.objectContaining({ id: keyRow!.id, plan: 'pro', revokedAt: null })]);

    const second = await cli('create', '--name', 'rotation', '--account', account!.id);
    const secondKey = second.stdout.trim().split('\n').at(-1)!;
    expect((await findAccountByKeyHash(infra.pool, hashApiKey(secondKey)))?.id).toBe(account!.id);

    expect((await cli('revoke', keyRow!.id)).stdout).toMatch(/The API refuses it within 30 s/);
    expect(await findAccountByKeyHash(infra.pool, hashApiKey(key))).toBeNull();
    expect((await cli('list')).stdout).toMatch(/revoked/);
  });

  it('defaults to the free plan and refuses bad input with exit code 2', async () => {
    const created = await cli('create', '--name', 'hobbyist');
    const key = created.stdout.trim().split('\n').at(-1)!;
    const account = (await findAccountByKeyHash(infra.pool, hashApiKey(key)))!;
    expect(account.plan).toBe('free');
    await expect(cli('create', '--name', 'x', '--plan', 'gold')).rejects.toMatchObject({ code: 2 });
    await expect(cli('create')).rejects.toMatchObject({ code: 2 });
    await expect(cli('revoke', '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 2 });
    await expect(cli('revoke', 'slk_oops')).rejects.toMatchObject({ code: 2 });
    await expect(cli('create', '--name', 'x', '--account', 'nope')).rejects.toMatchObject({ code: 2 });
    // The plan belongs to the account: a --plan beside --account is refused, not ignored.
    await expect(cli('create', '--name', 'x', '--plan', 'pro', '--account', account.id)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--plan cannot be given with --account/),
    });
  });
});
