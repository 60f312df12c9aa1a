import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './processes';

const run = promisify(execFile);

/** `npm run apikey -- create` as a user runs it (built entry point, given environment); returns the key. */
export async function createKeyWithCli(env: Record<string, string>, plan: 'free' | 'pro'): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [join(ROOT, 'libs/accounts/dist/apikey-cli.js'), 'create', '--name', `contract-${plan}`, '--plan', plan],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } },
  );
  const key = stdout.trim().split('\n').at(-1) ?? '';
  if (!key.startsWith('slk_')) throw new Error(`no key in: ${stdout}`);
  return key;
}
