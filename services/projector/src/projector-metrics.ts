import { counter, histogram, type MetricsRegistry } from '@shortlink/metrics';

/** What the projections report, by projection (`links` into Postgres, `clicks` into ClickHouse). */
export function projectorMetrics(registry: MetricsRegistry) {
  return {
    batchSize: histogram(registry, {
      name: 'shortlink_projector_batch_size',
      help: "Messages per projected batch (clicks: a partition's batch, at most CLICK_BATCH_SIZE; several partitions' batches share a ClickHouse insert).",
      labelNames: ['projection'] as const,
      buckets: [1, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10_000],
    }),
    insertBatches: histogram(registry, {
      name: 'shortlink_projector_insert_batches',
      help: "Partitions' batches sent in one write to the projection store (clicks: one ClickHouse insert carries the batches of the partitions in hand).",
      labelNames: ['projection'] as const,
      buckets: [1, 2, 3, 4, 6, 8, 12, 16, 24, 32],
    }),
    insertDuration: histogram(registry, {
      name: 'shortlink_projector_insert_duration_seconds',
      help: 'Time of one write to the projection store (an attempt; retries are observed each).',
      labelNames: ['projection'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    }),
    clickFreshness: histogram(registry, {
      name: 'shortlink_click_freshness_seconds',
      help: 'Per ClickHouse insert of clicks, once it is done: the age of its oldest click (now minus the click time the redirector recorded), i.e. how long that click took to become countable.',
      buckets: [0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30, 60, 300, 3600],
    }),
    rows: counter(registry, {
      name: 'shortlink_projector_rows_total',
      help: 'Rows written by a projection (clicks already counted are not written again).',
      labelNames: ['projection'] as const,
    }),
  };
}

export type ProjectorMetricSet = ReturnType<typeof projectorMetrics>;
