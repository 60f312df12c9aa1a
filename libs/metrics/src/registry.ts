import { collectDefaultMetrics, Registry } from 'prom-client';

/** The process's one Prometheus registry: every service of the process registers on it, `/metrics` shows it. */
export type MetricsRegistry = Registry;

/** Every metric name the services register starts with this. */
export const METRIC_PREFIX = 'shortlink_';

/**
 * A registry with Node's process metrics (CPU, memory, event-loop lag, GC,
 * handles), prefixed as ours are. Tests that count only their own series
 * pass `processMetrics: false`.
 */
export function createMetricsRegistry(options: { processMetrics?: boolean } = {}): MetricsRegistry {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return registry;
}
