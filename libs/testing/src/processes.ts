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

export interface StartOptions {
  root: string;
  args?: (port: number) => string[];
  /** Node's own flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  healthPath?: string;
  port?: number;
}

/** The process exited before it was healthy; `portTaken` when it could not listen. */
class StartFailed extends Error {
  constructor(
    message: string,
    readonly portTaken: boolean,
  ) {
    super(message);
  }
}

/** Tries at most this many free ports: one is only free until someone else takes it. */
const PORT_ATTEMPTS = 3;

/**
 * Starts a built entry point (a path under `root`) with the given environment
 * and waits until it answers on `healthPath`. A free port is free only when it
 * is asked for: with many tests at once, an outgoing connection can take it as
 * its own ephemeral port before the process listens (EADDRINUSE in CI). So a
 * process that could not listen is started again on another port.
 */
export async function startProcess(
  entry: string,
  env: Record<string, string>,
  options: StartOptions,
): Promise<RunningProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      return await startOnPort(entry, env, options, port);
    } catch (e) {
      const again = e instanceof StartFailed && e.portTaken && options.port === undefined && attempt < PORT_ATTEMPTS;
      if (!again) throw e;
    }
  }
}

async function startOnPort(
  entry: string,
  env: Record<string, string>,
  options: StartOptions,
  port: number,
): Promise<RunningProcess> {
  const root = options.root;
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
  // A process that exits is not waited for until the deadline.
  const exitedEarly = exited.then(() => {
    throw new StartFailed(`${entry} exited before it was healthy:\n${output}`, output.includes('EADDRINUSE'));
  });
  let starting = true;
  try {
    await Promise.race([
      exitedEarly,
      eventually(
        async () => {
          if (!starting) return true;
          const res = await fetch(`${url}${options.healthPath ?? '/healthz'}`);
          return res.status === 200 ? true : undefined;
        },
        30_000,
        `${entry} to be healthy`,
      ),
    ]);
  } catch (e) {
    child.kill('SIGKILL');
    if (e instanceof StartFailed) throw e;
    throw new Error(`${(e as Error).message}\n${output}`);
  } finally {
    starting = false;
    exitedEarly.catch(() => undefined);
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
