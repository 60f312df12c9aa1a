import { counter, gauge, sampledCounter } from './instruments';
import { createMetricsRegistry } from './registry';

describe('one registry per process', () => {
  it('gives every component asking for a metric the same one', () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    const definition = { name: 'shortlink_things_total', help: 'Things.', labelNames: ['kind'] as const };
    expect(counter(registry, definition)).toBe(counter(registry, definition));
  });

  it('refuses a name asked for under another type or other labels', () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    counter(registry, { name: 'shortlink_things_total', help: 'Things.', labelNames: ['kind'] as const });
    expect(() => gauge(registry, { name: 'shortlink_things_total', help: 'Things.', labelNames: ['kind'] })).toThrow(
      /another type or other labels/,
    );
    expect(() => counter(registry, { name: 'shortlink_things_total', help: 'Things.', labelNames: ['other'] })).toThrow(
      /another type or other labels/,
    );
  });

  it("shows Node's process metrics under the project's prefix", async () => {
    const text = await createMetricsRegistry().metrics();
    expect(text).toContain('# TYPE shortlink_process_cpu_seconds_total counter');
    expect(text).toContain('shortlink_nodejs_eventloop_lag_seconds');
  });

  it('adds up the sources of a sampled counter', async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    const definition = { name: 'shortlink_clicks_total', help: 'Clicks.' };
    sampledCounter(registry, definition, () => 2);
    sampledCounter(registry, definition, () => 3);
    expect(await registry.getSingleMetricAsString('shortlink_clicks_total')).toContain('shortlink_clicks_total 5');
  });
});
