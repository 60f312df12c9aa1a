import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { buildOnce, ROOT } from './support/processes';

/**
 * Every command a user runs answers `--help` with its usage and settings (exit
 * 0), and a wrong argument with one line naming `--help` (exit 2), before it
 * opens any store: neither case needs a server.
 */
const COMMANDS: { script: string; entry: string; args: string[]; wrong: string[]; settings: RegExp }[] = [
  {
    script: 'apikey',
    entry: 'libs/accounts/dist/apikey-cli.js',
    args: [],
    wrong: ['create', '--name', 'me', '--plan', 'pro', '--account', '6f1c2d3e-0000-4000-8000-000000000001'],
    settings: /DATABASE_URL[\s\S]*DATA_DIR/,
  },
  {
    script: 'domains',
    entry: 'libs/domains/dist/domains-cli.js',
    args: [],
    wrong: ['verify', 'links.example.com', '--json'],
    settings: /DATABASE_URL[\s\S]*DATA_DIR/,
  },
  {
    script: 'db:migrate',
    entry: 'libs/postgres/dist/migrate-cli.js',
    args: [],
    wrong: ['now'],
    settings: /DATABASE_URL/,
  },
  {
    script: 'rebuild',
    entry: 'services/projector/dist/rebuild-cli.js',
    args: [],
    wrong: ['--all'],
    settings: /KAFKA_BROKERS[\s\S]*DATA_DIR/,
  },
  ...['up', 'down', 'status', 'compose-config'].map((action) => ({
    script: `fleet:${action}`,
    entry: 'deploy/fleet/dist/fleet-cli.js',
    args: [action],
    wrong: ['--force'],
    settings: /FLEET_DIR/,
  })),
  {
    script: 'chaos',
    entry: 'deploy/fleet/dist/chaos/chaos-cli.js',
    args: [],
    wrong: ['meteor-strike'],
    settings: /CHAOS_REDIRECTS_PER_SECOND[\s\S]*FLEET_DIR/,
  },
  {
    script: 'schemas',
    entry: 'libs/events/dist/json-schemas-cli.js',
    args: ['docs/schemas'],
    wrong: ['docs/elsewhere'],
    settings: /No settings/,
  },
  { script: 'bench', entry: 'bench/dist/main.js', args: [], wrong: ['--addresses=mars'], settings: /KAFKA_BROKERS/ },
];

/** The command as `npm run <script> -- <argv>` runs it, in an empty environment. */
const run = (entry: string, argv: string[]) =>
  spawnSync(process.execPath, [join(ROOT, entry), ...argv], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    timeout: 20_000,
  });

beforeAll(() => buildOnce(), 120_000);

describe.each(COMMANDS)('npm run $script', ({ script, entry, args, wrong, settings }) => {
  it('answers --help with its usage and settings', () => {
    const result = run(entry, [...args, '--help']);
    expect(result).toMatchObject({ status: 0, stderr: '' });
    expect(result.stdout).toMatch(new RegExp(`^usage: npm run .*${script.replace(/:.*/, '')}`));
    expect(result.stdout).toMatch(settings);
  });

  it('refuses a wrong argument in one line', () => {
    const result = run(entry, [...args, ...wrong]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/ \(see: npm run .* --help\)$/)]);
  });
});
