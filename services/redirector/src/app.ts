import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SLUG_PATTERN } from '@shortlink/events';
import { servedSchema, type Dependency, type ServiceModule } from '@shortlink/http';
import type { ClickQueueStats } from './clicks/click-queue';
import type { LinkCache } from './link-cache';
import type { ResolvedLink } from './resolved-link';
import { passQueryThrough } from './query-pass-through';
import { REDIRECT_ERRORS, type RedirectError } from './redirect-errors';
import { REDIRECT_ROUTE } from './redirector-routes';

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
  stop?: (deadline?: number) => Promise<void>;
  /** What `/readyz` checks: Postgres, needed only while the cache is cold. */
  dependencies?: readonly Dependency[];
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
    dependencies: deps.dependencies,
    // `healthz`, `readyz` and `metrics` (the process's own routes) are reserved slugs: they never hide a link.
    async routes(app: FastifyInstance) {
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
