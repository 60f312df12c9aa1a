import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

/**
 * The machine's cores split between the service and a browser, so that a page's timings are the service's and not
 * the browser's: a person's browser runs on their own machine, never on the server's cores. On the bench's 2-core
 * machine, left unsplit, Chromium drawing a fresh tab took the cores from the service in the very milliseconds its
 * answers were timed. Linux's `taskset`; null (no split) with fewer than 2 cores or without `taskset`.
 */
export interface CpuSplit {
  service: string;
  browser: string;
  /** Pins a process, all its threads and every process it has started (whose later children inherit it). */
  pinService(pid: number): void;
  pinBrowser(pid: number): void;
  /** Gives a process every core again (the shared local ClickHouse endpoint, once the part is done). */
  release(pid: number): void;
}

export function splitCpus(): CpuSplit | null {
  const count = cpus().length;
  if (count < 2 || !existsSync('/usr/bin/taskset')) return null;
  const half = Math.floor(count / 2);
  const range = (from: number, to: number) => (from === to ? `${from}` : `${from}-${to}`);
  const service = range(0, half - 1);
  const browser = range(half, count - 1);
  const pin = (pid: number, list: string) => {
    for (const each of [pid, ...descendants(pid)]) {
      try {
        execFileSync('taskset', ['-a', '-p', '-c', list, String(each)], { stdio: 'ignore' });
      } catch {
        // A process that ended meanwhile: nothing to pin.
      }
    }
  };
  return {
    service,
    browser,
    pinService: (pid) => pin(pid, service),
    pinBrowser: (pid) => pin(pid, browser),
    release: (pid) => pin(pid, range(0, count - 1)),
  };
}

/** The processes `pid` started, still running. */
export function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((child) => child > 0);
  } catch {
    return []; // ps exits 1 when there are none.
  }
}

function descendants(pid: number): number[] {
  return childPids(pid).flatMap((child) => [child, ...descendants(child)]);
}

/**
 * The stores the service waits on that run on this machine: the local ClickHouse endpoint (deploy/local/infra.sh),
 * and Postgres's and Redis's servers (whose later processes, a connection's backend, inherit the pinning).
 */
export function localStorePids(root: string): number[] {
  const named = (name: string) => {
    try {
      return execFileSync('pgrep', ['-x', name], { encoding: 'utf8' })
        .split('\n')
        .map((line) => Number(line.trim()))
        .filter((pid) => pid > 0);
    } catch {
      return []; // pgrep exits 1 when none runs.
    }
  };
  const clickhouse = localClickHousePid(root);
  return [...(clickhouse ? [clickhouse] : []), ...named('postgres'), ...named('redis-server')];
}

/** The local ClickHouse endpoint's process (deploy/local/infra.sh), when this machine runs it. */
export function localClickHousePid(root: string): number | null {
  const file = join(root, '.infra', 'chdb-server.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return pid > 0 ? pid : null;
}
