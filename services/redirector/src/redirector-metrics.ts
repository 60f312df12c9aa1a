import { performance } from 'node:perf_hooks';
import { counter, histogram, sampledCounter, sampledGauge, type MetricsRegistry } from '@shortlink/metrics';
import type { ClickQueueStats } from './clicks/click-queue';
import type { TrustLoss } from './invalidation';
import type { LookupLink } from './resolved-link';

/** What the redirector counts on its hot path, as plain numbers read at scrape time. */
export interface RedirectorCounts {
  clicks: {
    readonly depth: number;
    readonly stats: Readonly<ClickQueueStats>;
    /** Counted on this thread, where the queue lives, whichever sink produces: the worker thread holds no count. */
    readonly workerRestarts: number;
  };
  cache: {
    readonly size: number;
    readonly stats: Readonly<{ hits: number; misses: number }>;
  };
  /** Absent where lookups are not gated (tests of the app alone). */
  lookups?: { storeAway(): boolean };
  /** Absent where nothing listens for link changes (tests of the app alone). */
  listener?: { trusted(): boolean };
  /** Absent where filtered redirects are not tallied (tests of the app alone). */
  filtered?: { readonly unknownSlugHits: number; readonly dropped: number };
}

/**
 * The click pipeline's and the link cache's metrics. The first six names are
 * read by the benchmark and the chaos tool (queued minus sent minus dropped
 * is what a redirector holds unacknowledged): keep them as they are.
 * Returns a function that stops reading these sources.
 */
export function registerRedirectorMetrics(registry: MetricsRegistry, counts: RedirectorCounts): () => void {
  const { clicks, cache, lookups, listener, filtered } = counts;
  const stops = [
    sampledCounter(
      registry,
      { name: 'shortlink_clicks_queued_total', help: 'Human clicks accepted into the click queue.' },
      () => clicks.stats.queued,
    ),
    sampledCounter(
      registry,
      { name: 'shortlink_clicks_sent_total', help: 'Clicks acknowledged by the event log.' },
      () => clicks.stats.sent,
    ),
    sampledCounter(
      registry,
      { name: 'shortlink_clicks_dropped_total', help: 'Clicks dropped because the queue was full.' },
      () => clicks.stats.dropped,
    ),
    sampledCounter(
      registry,
      {
        name: 'shortlink_clicks_rejected_total',
        help: 'Clicks left out of their batch because they could not be written as events (a bug; logged with the error).',
      },
      () => clicks.stats.rejected,
    ),
    sampledCounter(
      registry,
      { name: 'shortlink_click_sends_failed_total', help: 'Failed batch sends (each retried).' },
      () => clicks.stats.failedSends,
    ),
    sampledGauge(
      registry,
      { name: 'shortlink_click_queue_depth', help: 'Clicks waiting to be sent.' },
      () => clicks.depth,
    ),
    sampledCounter(
      registry,
      { name: 'shortlink_click_worker_restarts_total', help: 'Click worker threads that died and were replaced.' },
      () => clicks.workerRestarts,
    ),
    sampledCounter(
      registry,
      {
        name: 'shortlink_link_cache_hits_total',
        help: 'Redirects answered from the link cache (a link or a remembered unknown slug).',
      },
      () => cache.stats.hits,
    ),
    sampledCounter(
      registry,
      { name: 'shortlink_link_cache_misses_total', help: 'Redirects that had to look their slug up in Postgres.' },
      () => cache.stats.misses,
    ),
    sampledGauge(
      registry,
      { name: 'shortlink_link_cache_entries', help: 'Slugs held in the link cache, unknown ones included.' },
      () => cache.size,
    ),
  ];
  if (lookups) {
    stops.push(
      sampledGauge(
        registry,
        {
          name: 'shortlink_link_lookup_store_away',
          help: 'Whether lookups hold Postgres for unreachable (1): they then share one connection attempt (outage-gate.ts).',
        },
        () => (lookups.storeAway() ? 1 : 0),
      ),
    );
  }
  if (listener) {
    stops.push(
      sampledGauge(
        registry,
        {
          name: 'shortlink_link_cache_trusted',
          help: 'Whether the link cache answers redirects (1): the listener holds its lease. 0: every redirect looks its slug up in Postgres.',
        },
        () => (listener.trusted() ? 1 : 0),
      ),
    );
  }
  if (filtered) {
    stops.push(
      sampledCounter(
        registry,
        {
          name: 'shortlink_unknown_slug_hits_total',
          help: 'Requests for a path that is no link (an unknown or deleted slug): answered 404, counted per day in ClickHouse too.',
        },
        () => filtered.unknownSlugHits,
      ),
      sampledCounter(
        registry,
        {
          name: 'shortlink_filtered_redirects_dropped_total',
          help: 'Filtered redirects (bots, HEAD, prefetches) left uncounted because the tally held its most keys.',
        },
        () => filtered.dropped,
      ),
    );
  }
  return () => stops.forEach((stop) => stop());
}

/**
 * `shortlink_link_cache_trust_lost_total{reason}`: each time the link cache
 * stopped being trusted (see TrustLoss): `lease_late` or `connection_lost`.
 */
export function countTrustLosses(registry: MetricsRegistry): (reason: TrustLoss) => void {
  const losses = counter(registry, {
    name: 'shortlink_link_cache_trust_lost_total',
    help: 'Times the link cache stopped being trusted, by reason (lease_late, connection_lost): Postgres lookups for every redirect until leased again.',
    labelNames: ['reason'] as const,
  });
  return (reason) => losses.labels({ reason }).inc();
}

/**
 * `shortlink_link_lookup_duration_seconds{outcome}`: what a redirect of a slug
 * not in memory pays on top of a cached one (waiting for a pooled connection
 * included), by outcome: `found`, `not_found`, `failed`.
 */
export function timeLookups(registry: MetricsRegistry, lookup: LookupLink): LookupLink {
  const durations = histogram(registry, {
    name: 'shortlink_link_lookup_duration_seconds',
    help: 'Time of a link cache miss: its slug looked up in Postgres, by outcome (found, not_found, failed).',
    labelNames: ['outcome'] as const,
    buckets: [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
  });
  const found = durations.labels({ outcome: 'found' });
  const notFound = durations.labels({ outcome: 'not_found' });
  const failed = durations.labels({ outcome: 'failed' });
  return async (slug) => {
    const started = performance.now();
    try {
      const link = await lookup(slug);
      (link === null ? notFound : found).observe((performance.now() - started) / 1000);
      return link;
    } catch (error) {
      failed.observe((performance.now() - started) / 1000);
      throw error;
    }
  };
}
