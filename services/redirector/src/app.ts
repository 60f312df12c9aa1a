import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SLUG_PATTERN } from '@shortlink/events';
import { servedSchema, type ServiceModule } from '@shortlink/http';
import type { ClickQueueStats } from './clicks/click-queue';
import type { LinkCache, ResolvedLink } from './link-cache';
import { passQueryThrough } from './query-pass-through';
import { REDIRECT_ERRORS, type RedirectError } from './redirect-errors';
import { METRICS_ROUTE, REDIRECT_ROUTE } from './redirector-routes';

const refuse = (reply: FastifyReply, { status, headers, body }: RedirectError): FastifyReply =>
  reply.code(status).headers(headers).send(body);

export const SERVICE_NAME = 'redirector';

export interface RedirectorDeps {
  cache: LinkCache;
  /** Called after a redirect was answered; must not throw or wait. */
  onRedirect?: (request: FastifyRequest, link: ResolvedLink) => void;
  /** The queue of clicks not yet acknowledged by Kafka, for tests and metrics. */
  clickQueue?: {
    depth: number;
    stats: Readonly<ClickQueueStats>;
    workerRestarts?: number;
    flush(): Promise<void>;
  };
  start?: () => Promise<void>;
  stop?: () => Promise<void>;
}

function answer(reply: FastifyReply, link: ResolvedLink | null, requestUrl: string): FastifyReply {
  if (link === null) return refuse(reply, REDIRECT_ERRORS.notFound);
  // A cached redirect would be a click nobody counts.
  return reply
    .code(302)
    .header('location', passQueryThrough(link.location, requestUrl))
    .header('cache-control', 'private, no-store')
    .header('x-robots-tag', 'noindex')
    .send();
}

/** Answers GET and HEAD /:slug with a 302 from the in-process cache. */
export function createRedirector(deps: RedirectorDeps): ServiceModule {
  const redirect = (request: FastifyRequest, reply: FastifyReply, link: ResolvedLink | null): FastifyReply => {
    answer(reply, link, request.url);
    // After the response is written: recording a click never delays a redirect.
    if (link !== null) deps.onRedirect?.(request, link);
    return reply;
  };
  return {
    name: SERVICE_NAME,
    start: deps.start,
    stop: deps.stop,
    async routes(app: FastifyInstance) {
      // `metrics` is a reserved slug, so this never hides a link.
      app.get(METRICS_ROUTE.url, { schema: servedSchema(METRICS_ROUTE) }, (_request, reply) =>
        reply.header('content-type', 'text/plain; version=0.0.4').send(metricsText(deps)),
      );
      app.get<{ Params: { slug: string } }>(
        REDIRECT_ROUTE.url,
        { schema: servedSchema(REDIRECT_ROUTE) },
        (request, reply) => {
          const { slug } = request.params;
          // Anything else cannot be a slug: a 404 without a lookup.
          if (!SLUG_PATTERN.test(slug)) return refuse(reply, REDIRECT_ERRORS.notFound);
          const cached = deps.cache.peek(slug);
          // Warm path: no promise, no I/O.
          if (cached) return redirect(request, reply, cached);
          return deps.cache.resolve(slug).then(
            (link) => redirect(request, reply, link),
            (err: unknown) => {
              request.log.warn({ err, slug }, 'link lookup failed');
              return refuse(reply, REDIRECT_ERRORS.lookupFailed);
            },
          );
        },
      );
    },
  };
}

/** Prometheus text exposition of the click pipeline's counters. */
function metricsText(deps: RedirectorDeps): string {
  const stats = deps.clickQueue?.stats ?? { queued: 0, sent: 0, dropped: 0, failedSends: 0 };
  const lines = [
    ['shortlink_clicks_queued_total', 'counter', 'Human clicks accepted into the click queue.', stats.queued],
    ['shortlink_clicks_sent_total', 'counter', 'Clicks acknowledged by the event log.', stats.sent],
    ['shortlink_clicks_dropped_total', 'counter', 'Clicks dropped because the queue was full.', stats.dropped],
    ['shortlink_click_sends_failed_total', 'counter', 'Failed batch sends (each retried).', stats.failedSends],
    ['shortlink_click_queue_depth', 'gauge', 'Clicks waiting to be sent.', deps.clickQueue?.depth ?? 0],
    [
      'shortlink_click_worker_restarts_total',
      'counter',
      'Click worker threads that died and were replaced.',
      deps.clickQueue?.workerRestarts ?? 0,
    ],
  ] as const;
  return `${lines.map(([name, type, help, value]) => `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name} ${value}`).join('\n')}\n`;
}
