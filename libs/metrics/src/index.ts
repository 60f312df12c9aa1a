export {
  createMetricsRegistry,
  METRIC_PREFIX,
  ProcessRegistry,
  type MetricsRegistry,
  type MetricsSnapshot,
} from './registry';
export {
  counter,
  gauge,
  histogram,
  sampledCounter,
  sampledGauge,
  scrapedGauge,
  type MetricDefinition,
  type HistogramDefinition,
} from './instruments';
export { Registry } from 'prom-client';
export type { Counter, Gauge, Histogram } from 'prom-client';
