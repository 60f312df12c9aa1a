import { Counter } from 'prom-client';
import { createMetricsRegistry } from './registry';

describe('the process registry', () => {
  it("shows a worker thread's metrics with its own, as one exposition", async () => {
    const main = createMetricsRegistry({ processMetrics: false });
    const thread = createMetricsRegistry({ processMetrics: false });
    const inMain = new Counter({
      name: 'shortlink_rows_total',
      help: 'Rows.',
      labelNames: ['projection'],
      registers: [main],
    });
    const inThread = new Counter({
      name: 'shortlink_rows_total',
      help: 'Rows.',
      labelNames: ['projection'],
      registers: [thread],
    });
    inMain.inc({ projection: 'links' }, 2);
    inThread.inc({ projection: 'clicks' }, 5);
    inThread.inc({ projection: 'links' }, 1);
    const remove = main.addThread(() => thread.getMetricsAsJSON());
    const text = await main.metrics();
    // One family, once: its HELP and TYPE are not repeated.
    expect(text.match(/# TYPE shortlink_rows_total counter/g)).toHaveLength(1);
    expect(text).toContain('shortlink_rows_total{projection="links"} 3');
    expect(text).toContain('shortlink_rows_total{projection="clicks"} 5');
    remove();
    expect(await main.metrics()).not.toContain('projection="clicks"');
  });

  it('leaves out a thread that does not answer, and still shows its own', async () => {
    const main = createMetricsRegistry({ processMetrics: false });
    new Counter({ name: 'shortlink_own_total', help: 'Own.', registers: [main] }).inc();
    main.addThread(() => Promise.reject(new Error('thread stopping')));
    expect(await main.metrics()).toContain('shortlink_own_total 1');
  });
});
