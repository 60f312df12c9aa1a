import { Counter, Gauge, Histogram, type Metric } from 'prom-client';
import type { MetricsRegistry } from './registry';

export interface MetricDefinition<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

export interface HistogramDefinition<L extends string> extends MetricDefinition<L> {
  buckets: number[];
}

/**
 * Several components of one process may need the same metric (two consumers
 * count messages by group): the first to ask registers it, the others get it.
 * Asking for a name under another type or other labels is a programming error.
 */
function shared<M extends Metric<string>>(
  registry: MetricsRegistry,
  definition: MetricDefinition<string>,
  type: new (...args: never[]) => M,
  create: () => M,
): M {
  const existing = registry.getSingleMetric(definition.name);
  if (existing === undefined) return create();
  const labels = (existing as unknown as { labelNames: readonly string[] }).labelNames;
  if (!(existing instanceof type) || labels.join() !== (definition.labelNames ?? []).join()) {
    throw new Error(`metric ${definition.name} is already registered with another type or other labels`);
  }
  return existing;
}

export function counter<L extends string>(registry: MetricsRegistry, definition: MetricDefinition<L>): Counter<L> {
  return shared(
    registry,
    definition,
    Counter<L>,
    () => new Counter<L>({ ...definition, labelNames: definition.labelNames ?? [], registers: [registry] }),
  );
}

export function gauge<L extends string>(registry: MetricsRegistry, definition: MetricDefinition<L>): Gauge<L> {
  return shared(
    registry,
    definition,
    Gauge<L>,
    () => new Gauge<L>({ ...definition, labelNames: definition.labelNames ?? [], registers: [registry] }),
  );
}

export function histogram<L extends string>(
  registry: MetricsRegistry,
  definition: HistogramDefinition<L>,
): Histogram<L> {
  return shared(
    registry,
    definition,
    Histogram<L>,
    () => new Histogram<L>({ ...definition, labelNames: definition.labelNames ?? [], registers: [registry] }),
  );
}

type Sources = Set<() => number>;
interface CounterState {
  sources: Sources;
  /** What sources that stopped had counted: a counter never goes down. */
  retired: number;
}
const counterStates = new WeakMap<Metric<string>, CounterState>();
const gaugeSources = new WeakMap<Metric<string>, Sources>();

/**
 * A counter read at scrape time from a plain number that only grows: hot
 * paths (a redirect, a click) keep incrementing their own field, and pay
 * nothing for the metric. Several sources (one per component) add up.
 * Returns a function that stops reading the source; what it counted stays.
 */
export function sampledCounter(
  registry: MetricsRegistry,
  definition: MetricDefinition<never>,
  read: () => number,
): () => void {
  let metric = registry.getSingleMetric(definition.name);
  if (!metric) {
    const state: CounterState = { sources: new Set(), retired: 0 };
    let reported = 0;
    metric = new Counter({
      ...definition,
      labelNames: [],
      registers: [registry],
      collect() {
        const total = [...state.sources].reduce((sum, source) => sum + source(), state.retired);
        if (total > reported) this.inc(total - reported);
        reported = Math.max(reported, total);
      },
    });
    counterStates.set(metric, state);
  }
  const state = counterStates.get(metric);
  if (!state) throw new Error(`metric ${definition.name} is not a sampled counter`);
  state.sources.add(read);
  return () => {
    if (state.sources.delete(read)) state.retired += read();
  };
}

/** A gauge read at scrape time (a queue's depth, a cache's size); several sources add up. */
export function sampledGauge(
  registry: MetricsRegistry,
  definition: MetricDefinition<never>,
  read: () => number,
): () => void {
  let metric = registry.getSingleMetric(definition.name);
  if (!metric) {
    const sources: Sources = new Set();
    metric = new Gauge({
      ...definition,
      labelNames: [],
      registers: [registry],
      collect() {
        this.set([...sources].reduce((sum, source) => sum + source(), 0));
      },
    });
    gaugeSources.set(metric, sources);
  }
  const sources = gaugeSources.get(metric);
  if (!sources) throw new Error(`metric ${definition.name} is not a sampled gauge`);
  sources.add(read);
  return () => void sources.delete(read);
}

/**
 * A gauge whose series are read at scrape time, possibly asynchronously (a
 * readiness check): each scrape shows exactly the series `read` returns.
 * One reader per name: a second is a programming error.
 */
export function scrapedGauge<L extends string>(
  registry: MetricsRegistry,
  definition: MetricDefinition<L>,
  read: () => Promise<{ labels: Record<L, string>; value: number }[]>,
): void {
  if (registry.getSingleMetric(definition.name)) throw new Error(`metric ${definition.name} is already registered`);
  new Gauge<L>({
    ...definition,
    labelNames: definition.labelNames ?? [],
    registers: [registry],
    async collect() {
      const values = await read();
      this.reset();
      for (const { labels, value } of values) this.set(labels as Partial<Record<L, string | number>>, value);
    },
  });
}
