import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { LoadOptions, LoadSummary } from './load';

/** A logger that says nothing: the bench reports its own figures, not its clients' logs. */
export const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/** Runs the load generator in its own process and returns its summary. */
export function runLoad(root: string, options: LoadOptions): Promise<LoadSummary> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(root, 'bench/dist/load.js'), JSON.stringify(options)],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`load generator failed: ${stderr || error.message}`));
        try {
          resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as LoadSummary);
        } catch (e) {
          reject(new Error(`load generator printed no summary: ${stdout}${stderr} (${String(e)})`));
        }
      },
    );
  });
}

/** p50/p95/p99/max of a list of millisecond samples. */
export function percentiles(samples: number[]): { p50: number; p95: number; p99: number; max: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return {
    p50: round(at(0.5)),
    p95: round(at(0.95)),
    p99: round(at(0.99)),
    max: round(sorted.at(-1) ?? NaN),
    n: sorted.length,
  };
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
