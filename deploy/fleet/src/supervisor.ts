import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import { join } from 'node:path';

/** One process of the fleet: how to start it and how to tell it is ready. */
export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Runs before each start (writes the process's configuration). */
  prepare?: () => void;
  /** Resolves true once the process can serve (an HTTP health check, a broker handshake). */
  ready: () => Promise<boolean>;
  readyTimeoutMs?: number;
  /** Started under `nice -n` (every thread inherits it): batch work that yields the CPU to requests. */
  nice?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, owned by someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Starts the fleet's processes detached (they outlive the command that
 * started them), one log file and one pid file each under `runDir`, and
 * signals them by name: what `fleet:up`, `fleet:down` and the chaos run share.
 */
export class Supervisor {
  constructor(readonly runDir: string) {
    mkdirSync(join(runDir, 'pids'), { recursive: true });
    mkdirSync(join(runDir, 'logs'), { recursive: true });
  }

  logFile(name: string): string {
    return join(this.runDir, 'logs', `${name}.log`);
  }

  private pidFile(name: string): string {
    return join(this.runDir, 'pids', `${name}.pid`);
  }

  /** The pid of `name` if it is running. */
  pid(name: string): number | null {
    try {
      const pid = Number(readFileSync(this.pidFile(name), 'utf8'));
      return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
    } catch {
      return null;
    }
  }

  /** Starts the process unless it runs already, and waits until it is ready. */
  async start(spec: ProcessSpec): Promise<void> {
    if (this.pid(spec.name) === null) {
      spec.prepare?.();
      const log = openSync(this.logFile(spec.name), 'a');
      try {
        // `nice` execs the command: the pid written below is the service's own.
        const [command, args] =
          spec.nice === undefined
            ? [spec.command, spec.args]
            : ['nice', ['-n', String(spec.nice), spec.command, ...spec.args]];
        const child = spawn(command, args, {
          cwd: spec.cwd,
          env: { ...process.env, ...spec.env },
          detached: true,
          stdio: ['ignore', log, log],
        });
        if (child.pid === undefined) throw new Error(`${spec.name}: could not start ${spec.command}`);
        writeFileSync(this.pidFile(spec.name), String(child.pid));
        child.unref();
      } finally {
        closeSync(log);
      }
    }
    await this.waitReady(spec);
  }

  async waitReady(spec: ProcessSpec): Promise<void> {
    const deadline = Date.now() + (spec.readyTimeoutMs ?? 60_000);
    for (;;) {
      if (this.pid(spec.name) === null) {
        throw new Error(`${spec.name} exited while starting; see ${this.logFile(spec.name)}`);
      }
      if (await spec.ready().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`${spec.name} not ready in time; see ${this.logFile(spec.name)}`);
      await sleep(250);
    }
  }

  /** Sends `signal` and waits for the process to exit (SIGKILL after `timeoutMs`); the exit takes its pid file. */
  async stop(name: string, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<void> {
    const pid = this.pid(name);
    if (pid !== null) {
      this.signal(pid, signal);
      const deadline = Date.now() + timeoutMs;
      while (isAlive(pid)) {
        if (Date.now() > deadline) this.signal(pid, 'SIGKILL');
        await sleep(50);
      }
    }
    rmSync(this.pidFile(name), { force: true });
  }

  /** `kill -9`: no chance to flush or say goodbye. */
  kill(name: string): Promise<void> {
    return this.stop(name, 'SIGKILL');
  }

  /**
   * Whether `spec`'s process runs with another value of a variable its spec sets (read from /proc, Linux only):
   * a fleet started by another command, with other settings, that a start would leave as it is.
   */
  runsWithOtherEnv(spec: ProcessSpec): boolean {
    const pid = this.pid(spec.name);
    if (pid === null || spec.env === undefined) return false;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    } catch {
      return false;
    }
    const running = new Map(
      environ.split('\0').map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
    return Object.entries(spec.env).some(([name, value]) => running.get(name) !== value);
  }

  /** SIGSTOP: the process holds its sockets and answers nothing, as a machine that froze. */
  pause(name: string): void {
    const pid = this.pid(name);
    if (pid !== null) this.signal(pid, 'SIGSTOP');
  }

  resume(name: string): void {
    const pid = this.pid(name);
    if (pid !== null) this.signal(pid, 'SIGCONT');
  }

  private signal(pid: number, signal: NodeJS.Signals): void {
    try {
      process.kill(pid, signal);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }
}
