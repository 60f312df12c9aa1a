import { readFileSync } from 'node:fs';

/** The machine's CPU time so far, from the first line of /proc/stat (Linux): busy and all, in ticks. */
export interface CpuTicks {
  busy: number;
  total: number;
}

/** Parses /proc/stat's `cpu` line: idle and iowait are idle, the rest (user, nice, system, irq, softirq, steal) busy. */
export function cpuTicks(procStat: string): CpuTicks {
  const line = procStat.split('\n', 1)[0] ?? '';
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (line.split(/\s+/)[0] !== 'cpu' || fields.length < 4 || fields.some((n) => !Number.isFinite(n))) {
    throw new Error(`not a /proc/stat cpu line: ${line.slice(0, 80)}`);
  }
  const total = fields.reduce((sum, n) => sum + n, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** The share of the machine's CPU busy between two readings, in percent (null: no time passed). */
export function busyPercent(from: CpuTicks, to: CpuTicks): number | null {
  const total = to.total - from.total;
  return total > 0 ? Math.round((100 * (to.busy - from.busy)) / total) : null;
}

/**
 * Calls `note` about once a second with the share of the machine's CPU busy
 * since the last call: a stall of the fleet on a machine at 100 % is the
 * machine's, one at 40 % is not. Returns the stop; does nothing where there
 * is no /proc/stat.
 */
export function watchMachineBusy(note: (percent: number) => void, everyMs = 1000): () => void {
  const read = () => cpuTicks(readFileSync('/proc/stat', 'utf8'));
  let last: CpuTicks;
  try {
    last = read();
  } catch {
    return () => undefined;
  }
  const timer = setInterval(() => {
    const now = read();
    const percent = busyPercent(last, now);
    last = now;
    if (percent !== null) note(percent);
  }, everyMs);
  return () => clearInterval(timer);
}
