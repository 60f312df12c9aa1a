import type { Pool } from 'pg';
import type { RedirectorDeps } from './app';
import { listenForNewLinks, type InvalidationLogger } from './invalidation';
import { LinkCache } from './link-cache';
import { postgresLookup } from './lookup';

export interface RedirectorResources {
  pool: Pool;
  databaseUrl: string;
  logger: InvalidationLogger;
  cacheSize?: number;
}

export function wireRedirector({ pool, databaseUrl, logger, cacheSize }: RedirectorResources): RedirectorDeps {
  const cache = new LinkCache({
    lookup: postgresLookup(pool),
    maxEntries: cacheSize ?? 1_000_000,
    negativeTtlMs: 5000,
  });
  const listener = listenForNewLinks(databaseUrl, cache, logger);
  return { cache, start: () => listener.start(), stop: () => listener.stop() };
}
