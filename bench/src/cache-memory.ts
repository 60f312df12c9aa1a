/**
 * Memory per cached link, in a process of its own: `node --expose-gc bench/dist/cache-memory.js '{"entries":1000000}'`.
 * Fills the redirector's LinkCache through its real Postgres lookup with links shaped as the cold-cache part loads
 * them, and divides the heap's and off-heap buffers' growth (after full collections) by the entries: once full, and
 * again after as many links again went through it, since V8 gives a Map with deleted entries a table twice as large.
 * Prints one JSON line.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { LinkCache, postgresLookup } from '@shortlink/service-redirector';
import { COLD_CACHE_ACCOUNT, destinationOf, slugOf } from './cold-cache-links';

export interface CacheMemory {
  entries: number;
  /** After as many evictions as entries: what a running redirector holds. */
  bytesPerLink: number;
  /** Just filled, nothing evicted yet. */
  bytesPerLinkFilled: number;
  /** Of the destinations held: the part of each entry that varies with the link. */
  meanDestinationLength: number;
}

/** As pg hands a column over: a string of its own, parsed out of the socket's buffer. */
const fresh = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');

async function main(): Promise<void> {
  const { entries } = JSON.parse(process.argv[2] ?? '{}') as { entries: number };
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const used = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  let destinationChars = 0;
  let destinations = 0;
  const pool = {
    // Called as pg is: (text, values), or one query config ({ text, values, query_timeout }).
    query: async (query: string | { values: unknown[] }, values?: unknown[]) => {
      const slug = (typeof query === 'string' ? values : query.values)?.[0];
      const i = Number(String(slug).slice(2));
      const destination = fresh(destinationOf(i));
      destinationChars += destination.length;
      destinations++;
      const now = new Date();
      return {
        rows: [
          {
            link_id: fresh(randomUUID()),
            account_id: fresh(COLD_CACHE_ACCOUNT),
            destination_url: destination,
            tag: null,
            created_at: now,
            updated_at: null,
            deleted_at: null,
            version: 1,
            routing: null,
          },
        ],
      };
    },
  } as unknown as Pool;

  const before = used();
  const cache = new LinkCache({
    lookup: postgresLookup(pool, 'visitor-secret'),
    maxEntries: entries,
    negativeTtlMs: 5000,
  });
  const fill = async (from: number) => {
    for (let i = from; i < from + entries; i++) {
      // As a request's slug arrives: cut out of its path by the router.
      const path = `/${slugOf(i)}?utm_source=newsletter&utm_medium=email`;
      await cache.resolve(path.slice(1, path.indexOf('?')));
    }
    if (cache.size !== entries) throw new Error(`cache holds ${cache.size} of ${entries}`);
    return Math.round((used() - before) / entries);
  };
  const bytesPerLinkFilled = await fill(0);
  const bytesPerLink = await fill(entries);
  const result: CacheMemory = {
    entries,
    bytesPerLink,
    bytesPerLinkFilled,
    meanDestinationLength: Math.round((destinationChars / destinations) * 10) / 10,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
