import type { FastifyInstance } from 'fastify';
import { histogram, type MetricsRegistry } from '@shortlink/metrics';
import { API_ROUTE_TAGS, NO_SECURITY, servedSchema, type ApiRoute } from './api-route';

/** Redirects answer in well under a millisecond; an analytics query may take seconds. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The label of requests no route took (404s, malformed URLs): never the raw path, whose values are unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * `shortlink_http_request_duration_seconds{method, route, status}`: every
 * answered request, by its route pattern (`/:slug`, never `/abc12`), so a
 * scan of random paths adds no series. Its `_count` is the request rate,
 * its 5xx series the errors.
 */
export function recordRequestMetrics(app: FastifyInstance, registry: MetricsRegistry): void {
  const durations = histogram(registry, {
    name: 'shortlink_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: BUCKETS,
  });
  // One child per series, found by a string key: no labels object built a request, and prom-client does not
  // validate and hash the labels on each observation.
  const series = new Map<string, ReturnType<typeof durations.labels>>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = series.get(key);
    if (!child) {
      child = durations.labels({ method: request.method, route, status: String(reply.statusCode) });
      series.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });
}

export const METRICS_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/metrics',
  schema: {
    operationId: 'metrics',
    summary: 'This process’s metrics, for Prometheus',
    description:
      'Every process serves its one registry: request durations by route, consumer lag and outcomes, projector batches, click queue, link cache, Node’s process metrics (docs/metrics.md lists them). `metrics` is a reserved slug, so this never hides a link.',
    tags: [API_ROUTE_TAGS.operations],
    security: NO_SECURITY,
    response: {
      200: {
        description: 'Prometheus text exposition format 0.0.4.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    },
  },
};

/** `GET /metrics`: the process's registry in Prometheus text exposition. */
export async function metricsRoute(app: FastifyInstance, registry: MetricsRegistry): Promise<void> {
  app.get(METRICS_ROUTE.url, { schema: servedSchema(METRICS_ROUTE) }, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(text);
  });
}
