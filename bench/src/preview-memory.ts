import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { PreviewMemoryProbe } from './preview-memory-probe';

export interface PreviewMemoryResult {
  /**
   * On Kafka, then on the embedded log (`npm start`), each with every link to
   * a destination of its own (a fetch, and its place in line, per link: the
   * worst case), then with links spread over 200 pages of each host, most
   * sharing a destination (the previews part's shape).
   */
  cases: PreviewMemoryProbe[];
}

function probe(
  root: string,
  links: number,
  destinations: PreviewMemoryProbe['destinations'],
  log: PreviewMemoryProbe['log'],
): Promise<PreviewMemoryProbe> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--expose-gc', join(root, 'bench/dist/preview-memory-probe.js'), String(links), destinations, log],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`preview memory probe failed: ${stderr || error.message}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as PreviewMemoryProbe);
      },
    ),
  );
}

/**
 * What a link waiting for its preview costs the worker: `links` links read
 * and held, their pages never answering, measured after a full GC against
 * the worker with none (see preview-memory-probe.ts). Each case in a fresh
 * process, one after the other.
 */
export async function benchPreviewMemory(root: string, options: { links: number }): Promise<PreviewMemoryResult> {
  const cases: PreviewMemoryProbe[] = [];
  for (const log of ['kafka', 'embedded'] as const) {
    for (const destinations of ['distinct', 'shared'] as const) {
      cases.push(await probe(root, options.links, destinations, log));
    }
  }
  return { cases };
}
