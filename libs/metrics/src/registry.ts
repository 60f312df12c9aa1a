import {
  AggregatorRegistry,
  collectDefaultMetrics,
  Registry,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';

/** What a registry holds at one moment, as `getMetricsAsJSON` gives it: it crosses threads. */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/**
 * The process's one Prometheus registry: every service of the process
 * registers on it, `/metrics` shows it. Modules that run on a worker thread
 * of the process keep a registry there and add it as a source: `/metrics`
 * then shows the process's metrics as one (series of the same name and
 * labels from several threads are summed, as prom-client aggregates workers).
 */
export class ProcessRegistry extends Registry {
  readonly #threads = new Set<() => Promise<MetricsSnapshot>>();

  /** Adds a thread's metrics; returns the function that removes them. */
  addThread(snapshot: () => Promise<MetricsSnapshot>): () => void {
    this.#threads.add(snapshot);
    return () => this.#threads.delete(snapshot);
  }

  override async metrics(): Promise<string> {
    if (this.#threads.size === 0) return super.metrics();
    const own = await this.getMetricsAsJSON();
    // A thread that does not answer (stopping, say) leaves its series out of this scrape.
    const others = await Promise.all([...this.#threads].map((snapshot) => snapshot().catch(() => [])));
    return AggregatorRegistry.aggregate([own, ...others]).metrics();
  }
}

export type MetricsRegistry = ProcessRegistry;

/** Every metric name the services register starts with this. */
export const METRIC_PREFIX = 'shortlink_';

/**
 * A registry with Node's process metrics (CPU, memory, event-loop lag, GC,
 * handles), prefixed as ours are. Tests that count only their own series,
 * and worker threads (whose process is the main thread's), pass
 * `processMetrics: false`.
 */
export function createMetricsRegistry(options: { processMetrics?: boolean } = {}): MetricsRegistry {
  const registry = new ProcessRegistry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return registry;
}
