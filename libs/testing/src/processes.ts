import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { eventually } from './scratch';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface RunningProcess {
  url: string;
  pid: number;
  output: () => string;
  /** SIGTERM: a graceful stop. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, with no chance to clean up. */
  kill(): Promise<void>;
}

/** Starts a built entry point (a path under `root`) with the given environment and waits until it answers on `healthPath`. */
export async function startProcess(
  entry: string,
  env: Record<string, string>,
  options: {
    root: string;
    args?: (port: number) => string[];
    /** Node's own flags, e.g. `--cpu-prof`. */
    nodeArgs?: string[];
    healthPath?: string;
    port?: number;
  },
): Promise<RunningProcess> {
  const root = options.root;
  const port = options.port ?? (await freePort());
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), join(root, entry), ...(options.args?.(port) ?? [])],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`${entry} exited: ${output}`);
        const res = await fetch(`${url}${options.healthPath ?? '/healthz'}`);
        return res.status === 200 ? true : undefined;
      },
      30_000,
      `${entry} to be healthy`,
    );
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${output}`);
  }
  return {
    url,
    pid: child.pid as number,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
