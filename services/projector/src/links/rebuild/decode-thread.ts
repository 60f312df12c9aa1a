import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DecodedFetch, PackedFetch } from './decode-fetch';

export interface DecodeThread {
  decode(fetch: PackedFetch): Promise<DecodedFetch>;
  close(): Promise<void>;
}

/**
 * The worker's entry beside this file once built; from the sources (the
 * tests run them through ts-jest), the built one under dist/, since a worker
 * thread runs plain JavaScript.
 */
function builtWorkerFile(): string {
  const beside = join(__dirname, 'decode-worker.js');
  return existsSync(beside)
    ? beside
    : join(__dirname, '..', '..', '..', 'dist', 'links', 'rebuild', 'decode-worker.js');
}

/** A thread that decodes fetches (decode-worker.ts), answering them in any order by id. */
export function startDecodeThread(): DecodeThread {
  const worker = new Worker(builtWorkerFile());
  const waiting = new Map<number, { resolve: (d: DecodedFetch) => void; reject: (e: Error) => void }>();
  let next = 0;
  let failure: Error | undefined;
  const failAll = (e: Error) => {
    failure = e;
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  worker.on('message', (m: { id: number; decoded?: DecodedFetch; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.decoded) w?.resolve(m.decoded);
    else w?.reject(new Error(`decoding a fetch failed: ${m.error ?? 'no answer'}`));
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the decoding thread exited (${code})`)));
  return {
    decode(fetch) {
      if (failure) return Promise.reject(failure);
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, fetch }, [fetch.bytes.buffer as ArrayBuffer]);
      });
    },
    async close() {
      await worker.terminate();
    },
  };
}
