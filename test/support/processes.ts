import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startProcess as startProcessUnder, type RunningProcess } from '@shortlink/testing';

export { freePort, type RunningProcess } from '@shortlink/testing';

export const ROOT = join(__dirname, '..', '..');

/** Tests of entry points run the built code, as production does; `tsc -b` is a no-op when it is current. */
export function buildOnce(): void {
  execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-b'], { cwd: ROOT, stdio: 'inherit' });
}

/** Starts one of this repository's built entry points. */
export function startProcess(
  entry: string,
  env: Record<string, string>,
  options: { args?: (port: number) => string[]; healthPath?: string; port?: number } = {},
): Promise<RunningProcess> {
  return startProcessUnder(entry, env, { ...options, root: ROOT });
}
