import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Supervisor, type ProcessSpec } from './supervisor';

describe('telling a process started with other settings', () => {
  let runDir: string;
  let supervisor: Supervisor;
  const spec = (env: Record<string, string>): ProcessSpec => ({
    name: 'sleeper',
    command: 'sleep',
    args: ['60'],
    env,
    ready: async () => true,
  });

  beforeEach(() => {
    runDir = mkdtempSync(join(tmpdir(), 'supervisor-'));
    supervisor = new Supervisor(runDir);
  });
  afterEach(async () => {
    await supervisor.stop('sleeper', 'SIGKILL');
    rmSync(runDir, { recursive: true, force: true });
  });

  it('says so when a running process has another value of a variable its spec sets', async () => {
    // Given a process started with WEBHOOKS_ALLOW_HTTP=false
    await supervisor.start(spec({ WEBHOOKS_ALLOW_HTTP: 'false' }));
    // Then a spec asking for true finds it running with other settings, and its own spec does not
    expect(supervisor.runsWithOtherEnv(spec({ WEBHOOKS_ALLOW_HTTP: 'true' }))).toBe(true);
    expect(supervisor.runsWithOtherEnv(spec({ WEBHOOKS_ALLOW_HTTP: 'false' }))).toBe(false);
    // And a variable the process never had counts as another value
    expect(supervisor.runsWithOtherEnv(spec({ WEBHOOKS_RETRY_SCHEDULE: '1,2' }))).toBe(true);
  });

  it('finds nothing to say of a process that is not running', () => {
    expect(supervisor.runsWithOtherEnv(spec({ WEBHOOKS_ALLOW_HTTP: 'true' }))).toBe(false);
  });
});
