import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** utime + stime of a process, all its threads, in ms (from /proc). */
export function processCpuMs(pid: number, thread?: string): number {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  // The command name may hold spaces: fields are counted from after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** utime + stime of each thread of a process but its main one, in ms, by thread id. */
export function threadCpuMs(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (tid === String(pid)) continue;
    try {
      out[tid] = processCpuMs(pid, tid);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** Each thread's CPU between two `threadCpuMs` readings (a thread born in between counts from 0). */
export function threadCpuSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([tid, ms]) => [tid, ms - (before[tid] ?? 0)]));
}

/** The thread that took the most CPU over these windows (the click worker, in the parts that look for it). */
export function busiestThread(windows: readonly Record<string, number>[]): string | undefined {
  const total = new Map<string, number>();
  for (const threads of windows) {
    for (const [tid, ms] of Object.entries(threads)) total.set(tid, (total.get(tid) ?? 0) + ms);
  }
  return [...total].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** The broker `npm run infra:up` started, if that is the one the bench talks to. */
export function localBrokerPid(root: string, brokers: string): number | null {
  if (brokers !== '127.0.0.1:9092' && brokers !== 'localhost:9092') return null;
  try {
    const pid = Number(readFileSync(join(root, '.infra', 'kafka', 'kafka.pid'), 'utf8').trim());
    processCpuMs(pid);
    return pid;
  } catch {
    return null;
  }
}

/** utime + stime of the Postgres backends serving one database, in ms, by pid (their titles name it). */
export function postgresBackendsCpuMs(database: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (title.startsWith('postgres: ') && title.includes(` ${database} `)) out[pid] = processCpuMs(Number(pid));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return out;
}

/** The machine's busy time, all cores, in ms (/proc/stat: everything but idle and iowait). */
export function machineBusyMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const busy = fields.reduce((sum, n, i) => (i === 3 || i === 4 ? sum : sum + n), 0);
  return (busy * 1000) / 100;
}
