import { createMetricsRegistry } from '@shortlink/metrics';
import { buildProcessServer } from './service';

describe('HTTP request metrics', () => {
  it('count and time each request by method, route pattern and status; unrouted paths share one series', async () => {
    // Given a process with a parametric route
    const metrics = createMetricsRegistry({ processMetrics: false });
    const app = await buildProcessServer(
      [
        {
          name: 'thing',
          async routes(scope) {
            scope.get<{ Params: { id: string } }>('/things/:id', async (request, reply) =>
              request.params.id === 'boom' ? reply.code(500).send({ error: 'x', code: 'x' }) : { ok: true },
            );
          },
        },
      ],
      { name: 'test', trustProxy: false, logger: false, metrics },
      () => true,
    );
    // When requests reach it, and paths no route takes
    for (const url of ['/things/1', '/things/2', '/things/boom', '/nope/a', '/nope/b']) await app.inject({ url });
    const text = (await app.inject({ url: '/metrics' })).body;
    // Then the series are by pattern, never by raw path
    expect(text).toContain(
      'shortlink_http_request_duration_seconds_count{method="GET",route="/things/:id",status="200"} 2',
    );
    expect(text).toContain(
      'shortlink_http_request_duration_seconds_count{method="GET",route="/things/:id",status="500"} 1',
    );
    expect(text).toContain(
      'shortlink_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 2',
    );
    expect(text).not.toMatch(/things\/1|nope/);
    expect(text).toContain('# TYPE shortlink_http_request_duration_seconds histogram');
  });
});
