import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Embedded servers running on this machine, so that a command run with the
 * wrong DATA_DIR (or none) can name the right one instead of quietly opening
 * an empty store. One file per running server, in a per-user folder under
 * the system's temporary directory; a file whose process is gone is removed
 * when next read.
 */
export interface RunningServer {
  pid: number;
  dataDir: string;
}

const registry = () => join(tmpdir(), `shortlink-embedded-${process.getuid?.() ?? 'user'}`);

export async function registerRunning(server: RunningServer): Promise<() => Promise<void>> {
  await mkdir(registry(), { recursive: true });
  const file = join(registry(), `${server.pid}.json`);
  await writeFile(file, JSON.stringify(server));
  return () => rm(file, { force: true });
}

/** True while `pid` runs (a process we may not signal still runs). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function listRunning(): Promise<RunningServer[]> {
  let names: string[];
  try {
    names = await readdir(registry());
  } catch {
    return [];
  }
  const running: RunningServer[] = [];
  for (const name of names) {
    try {
      const file = join(registry(), name);
      const server = JSON.parse(await readFile(file, 'utf8')) as RunningServer;
      if (!isAlive(server.pid))
        await rm(file, { force: true }); // left by a server killed with no chance to clean up
      else if (server.pid !== process.pid) running.push(server);
    } catch {
      // being written or removed right now: not a server to name
    }
  }
  return running;
}
