import { createMetricsRegistry } from '@shortlink/metrics';
import { readinessChecker, type Dependency } from './readiness';
import { buildProcessServer, type ServiceModule } from './service';

const down = (message: string) => async () => {
  throw new Error(message);
};
const up = async () => undefined;

describe('readinessChecker', () => {
  it('is ready when every required dependency answers, and lists each', async () => {
    // Given a module needing Postgres and Kafka, both answering
    const report = readinessChecker([
      {
        name: 'write-api',
        dependencies: [
          { name: 'postgres', check: up },
          { name: 'kafka', check: up },
        ],
      },
    ]);
    // Then it is ready, and says so per dependency
    await expect(report()).resolves.toEqual({
      ready: true,
      dependencies: [
        { module: 'write-api', name: 'postgres', state: 'up', required: true },
        { module: 'write-api', name: 'kafka', state: 'up', required: true },
      ],
    });
  });

  it('is not ready while a required dependency is down, and says why', async () => {
    const report = readinessChecker([
      { name: 'write-api', dependencies: [{ name: 'postgres', check: down('connect ECONNREFUSED 127.0.0.1:5432') }] },
    ]);
    await expect(report()).resolves.toEqual({
      ready: false,
      dependencies: [
        {
          module: 'write-api',
          name: 'postgres',
          state: 'down',
          required: true,
          error: 'connect ECONNREFUSED 127.0.0.1:5432',
        },
      ],
    });
  });

  it('stays ready when only a dependency the module can do without is down (a warm redirector without Postgres)', async () => {
    let warm = true;
    const report = readinessChecker(
      [{ name: 'redirector', dependencies: [{ name: 'postgres', check: down('away'), required: () => !warm }] }],
      { cacheMs: 0 },
    );
    expect((await report()).ready).toBe(true);
    warm = false;
    expect((await report()).ready).toBe(false);
  });

  it('checks a dependency shared by several modules once, and at most once per period whatever the probes', async () => {
    // Given one check shared by two modules, and a clock
    let calls = 0;
    let now = 0;
    const check = async () => void calls++;
    const shared: Dependency = { name: 'postgres', check };
    const report = readinessChecker(
      [
        { name: 'a', dependencies: [shared] },
        { name: 'b', dependencies: [{ name: 'postgres', check }] },
      ],
      { cacheMs: 1000, now: () => now },
    );
    // When a storm of probes arrives within the period
    await Promise.all(Array.from({ length: 50 }, () => report()));
    expect(calls).toBe(1);
    // Then only a probe after it checks again
    now = 999;
    await report();
    expect(calls).toBe(1);
    now = 1000;
    await report();
    expect(calls).toBe(2);
  });

  it('reports a check that does not answer in time as down, and starts no second one meanwhile', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const hanging = () => {
      calls++;
      return new Promise<void>((resolve) => (release = resolve));
    };
    jest.useFakeTimers();
    try {
      const report = readinessChecker([{ name: 'analytics', dependencies: [{ name: 'clickhouse', check: hanging }] }], {
        cacheMs: 1000,
        timeoutMs: 20,
      });
      const reporting = report();
      await jest.advanceTimersByTimeAsync(20);
      const first = await reporting;
      expect(first.ready).toBe(false);
      expect(first.dependencies[0]).toMatchObject({ state: 'down', error: 'no answer within 20 ms' });
      const again = report();
      await jest.advanceTimersByTimeAsync(20);
      await again;
      expect(calls).toBe(1);
      // Once it answers, that answer is the state
      release();
      await jest.advanceTimersByTimeAsync(0);
      expect((await report()).ready).toBe(true);
      expect(calls).toBe(1);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('GET /readyz and GET /healthz', () => {
  async function serve(modules: ServiceModule[], serving = true) {
    return buildProcessServer(
      modules,
      {
        name: 'shortlink',
        trustProxy: false,
        logger: false,
        metrics: createMetricsRegistry({ processMetrics: false }),
      },
      () => serving,
    );
  }

  it('answers 200 with the dependencies when ready', async () => {
    const app = await serve([{ name: 'analytics', dependencies: [{ name: 'clickhouse', check: up }] }]);
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ready',
      service: 'shortlink',
      dependencies: [{ module: 'analytics', name: 'clickhouse', state: 'up', required: true }],
    });
  });

  it('answers 503 in the error format, with the dependencies, when one is down; /healthz (liveness) stays 200', async () => {
    const app = await serve([{ name: 'write-api', dependencies: [{ name: 'postgres', check: down('refused') }] }]);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({
      error: 'Not ready',
      code: 'not_ready',
      detail: 'A required dependency is down: postgres.',
      service: 'shortlink',
      dependencies: [{ module: 'write-api', name: 'postgres', state: 'down', required: true, error: 'refused' }],
    });
    const live = await app.inject({ method: 'GET', url: '/healthz' });
    expect(live.statusCode).toBe(200);
  });

  it('answers 503 while the process starts or drains, its dependencies up', async () => {
    const app = await serve([{ name: 'analytics', dependencies: [{ name: 'clickhouse', check: up }] }], false);
    const answer = await app.inject({ method: 'GET', url: '/readyz' });
    expect([answer.statusCode, answer.json().detail]).toEqual([503, 'The process is starting or draining.']);
  });
});

describe('readiness in /metrics', () => {
  const scrape = async (modules: ServiceModule[], serving: boolean) => {
    const app = await buildProcessServer(
      modules,
      {
        name: 'shortlink',
        trustProxy: false,
        logger: false,
        metrics: createMetricsRegistry({ processMetrics: false }),
      },
      () => serving,
    );
    return (await app.inject({ method: 'GET', url: '/metrics' })).body;
  };

  it('shortlink_ready is 0 while a required dependency is down, and shortlink_dependency_up says which', async () => {
    const text = await scrape(
      [
        { name: 'write-api', dependencies: [{ name: 'postgres', check: down('refused') }] },
        { name: 'analytics', dependencies: [{ name: 'clickhouse', check: up }] },
      ],
      true,
    );
    expect(text).toContain('# TYPE shortlink_ready gauge');
    expect(text).toMatch(/^shortlink_ready 0$/m);
    expect(text).toContain('shortlink_dependency_up{module="write-api",dependency="postgres"} 0');
    expect(text).toContain('shortlink_dependency_up{module="analytics",dependency="clickhouse"} 1');
  });

  it('shortlink_ready is 1 when /readyz would answer 200, and 0 while the process starts or drains', async () => {
    const modules = [{ name: 'analytics', dependencies: [{ name: 'clickhouse', check: up }] }];
    expect(await scrape(modules, true)).toMatch(/^shortlink_ready 1$/m);
    expect(await scrape(modules, false)).toMatch(/^shortlink_ready 0$/m);
  });
});
