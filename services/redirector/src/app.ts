import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { linkKey, SLUG_PATTERN } from '@shortlink/events';
import { takeQrScanMarker } from '@shortlink/links';
import { chooseDestination, type Choice, type Visit } from '@shortlink/redirect-rules';
import { servedSchema, type Dependency, type ServiceModule } from '@shortlink/http';
import { FAVICON_SVG, LANDING_PAGE, NOT_FOUND_PAGE, prefersHtml, robotsTxt, sendPage } from './browser-pages';
import type { ClickQueueStats } from './clicks/click-queue';
import type { DomainRoutes, ServedDomainMap } from './domains/served-domain-map';
import type { LinkCache } from './link-cache';
import type { ResolvedLink } from './resolved-link';
import { passQueryThrough } from './query-pass-through';
import { REDIRECT_ERRORS, type RedirectError } from './redirect-errors';
import { REDIRECT_ROUTE } from './redirector-routes';

const refuse = (reply: FastifyReply, { status, headers, body }: RedirectError): FastifyReply =>
  reply.code(status).headers(headers).send(body);

/** An unknown or deleted link: a page for a browser, the contract's JSON for anyone else (only this branch reads `Accept`). */
const notFound = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
  prefersHtml(request.headers.accept)
    ? sendPage(reply, 404, NOT_FOUND_PAGE, 'no-store')
    : refuse(reply, REDIRECT_ERRORS.notFound);

export const SERVICE_NAME = 'redirector';

export interface RedirectorDeps {
  cache: LinkCache;
  /**
   * Called after a redirect was answered, with whether it was a QR code's scan and the rule or variant that chose its
   * destination (null: the link's own); must not throw or wait.
   */
  onRedirect?: (request: FastifyRequest, link: ResolvedLink, scanned: boolean, choice: Choice | null) => void;
  /** An address's country for a link's country rule (remembered-countries.ts); absent: every address is `XX`. */
  countryOf?: (address: string) => string;
  /** Called after a 404 for a path that is no link (an unknown or deleted slug, or no slug at all); must not throw or wait. */
  onUnknownSlug?: () => void;
  /**
   * The verified branded domains: a request whose `Host` names one is answered by that domain's links and its root
   * and not-found redirects (it holds no slug of the installation's). Any other `Host` is the installation's own.
   */
  domains?: Pick<ServedDomainMap, 'peek' | 'trusted' | 'confirm'>;
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
  /** ROBOTS_ALLOW_REDIRECTS: `/robots.txt` lets crawlers follow short links (default: it does not). */
  robotsAllowRedirects?: boolean;
}

/** The 302; `no-store`, because a redirect a browser kept would be a click nobody counts. */
const found = (reply: FastifyReply, location: string): FastifyReply =>
  reply
    .code(302)
    .header('location', location)
    .header('cache-control', 'private, no-store')
    .header('x-robots-tag', 'noindex')
    .send();

/** Answers GET and HEAD /:slug with a 302 from the in-process cache. */
export function createRedirector(deps: RedirectorDeps): ServiceModule {
  // After the 404 is written, as a click is counted after its 302.
  const unknownSlug = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    notFound(request, reply);
    deps.onUnknownSlug?.();
    return reply;
  };
  const redirect = (request: FastifyRequest, reply: FastifyReply, link: ResolvedLink | null): FastifyReply => {
    if (link === null) return unknownSlug(request, reply);
    // A QR code's scan marker is the redirector's to read (the click's trigger), never the destination's.
    const { url, scanned } = takeQrScanMarker(request.url);
    // A link without rules or variants has no routing: one comparison, and the redirect is today's.
    const choice = link.routing === undefined ? null : chooseDestination(link.routing, visitOf(request, url));
    found(reply, passQueryThrough(choice === null ? link.location : choice.location, url));
    // After the response is written: recording a click never delays a redirect.
    deps.onRedirect?.(request, link, scanned, choice);
    return reply;
  };
  const countryOf = deps.countryOf ?? (() => 'XX');
  /** What a link's rules may read of the request; each fact is worked out only when a rule reaches it. */
  const visitOf = (request: FastifyRequest, url: string): Visit => {
    const mark = url.indexOf('?');
    return {
      userAgent: request.headers['user-agent'],
      acceptLanguage: request.headers['accept-language'],
      query: mark === -1 ? '' : url.slice(mark + 1),
      address: request.ip ?? '',
      countryOf,
    };
  };
  // The site's root: a page for a browser; for an API client, the JSON 404 of any path that is no link.
  const root = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    prefersHtml(request.headers.accept)
      ? sendPage(reply.header('vary', 'Accept'), 200, LANDING_PAGE, 'public, max-age=300')
      : refuse(reply, REDIRECT_ERRORS.notFound);
  const slugRoute = (request: FastifyRequest<{ Params: { slug: string } }>, reply: FastifyReply) => {
    const { slug } = request.params;
    // Anything else cannot be a slug: a 404 without a lookup.
    if (!SLUG_PATTERN.test(slug)) return unknownSlug(request, reply);
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
  };
  /**
   * A slug on a verified domain: the domain's link of that slug (its key, `hostname/slug`), else its not-found
   * redirect. A link is served on a domain only when the domain's account owns it: a hostname another account held
   * once never reaches that account's links.
   */
  const domainSlugRoute = (
    request: FastifyRequest<{ Params: { slug: string } }>,
    reply: FastifyReply,
    domain: DomainRoutes,
  ): FastifyReply | Promise<FastifyReply> => {
    const { slug } = request.params;
    if (!SLUG_PATTERN.test(slug)) return notOnDomain(request, reply, domain);
    const key = linkKey(domain.hostname, slug);
    const answer = (link: ResolvedLink | null) =>
      link !== null && link.accountId === domain.accountId
        ? redirect(request, reply, link)
        : notOnDomain(request, reply, domain);
    const cached = deps.cache.peek(key);
    if (cached) return answer(cached);
    return deps.cache.resolve(key).then(answer, (err: unknown) => {
      request.log.warn({ err, key }, 'link lookup failed');
      return refuse(reply, REDIRECT_ERRORS.lookupFailed);
    });
  };
  /**
   * A request on a verified domain, answered by `onDomain`; a domain deleted meanwhile (found so while the map is
   * not trusted) is no domain, and the request is the installation's, as for any other `Host`.
   */
  const onVerifiedDomain = (
    domain: DomainRoutes,
    domains: NonNullable<RedirectorDeps['domains']>,
    onDomain: (domain: DomainRoutes) => FastifyReply | Promise<FastifyReply>,
    otherwise: () => FastifyReply | Promise<FastifyReply>,
  ): FastifyReply | Promise<FastifyReply> =>
    domains.trusted()
      ? onDomain(domain)
      : domains.confirm(domain).then((confirmed) => (confirmed === null ? otherwise() : onDomain(confirmed)));
  /** A slug the domain does not hold: its not-found redirect, or the 404. */
  const notOnDomain = (request: FastifyRequest, reply: FastifyReply, domain: DomainRoutes): FastifyReply => {
    if (domain.notFoundLocation === null) return unknownSlug(request, reply);
    found(reply, domain.notFoundLocation);
    deps.onUnknownSlug?.();
    return reply;
  };
  return {
    name: SERVICE_NAME,
    start: deps.start,
    stop: deps.stop,
    dependencies: deps.dependencies,
    // `healthz`, `readyz` and `metrics` (the process's own routes) are reserved slugs: they never hide a link.
    async routes(app: FastifyInstance) {
      const { domains } = deps;
      app.get('/', (request, reply) => {
        const domain = domains?.peek(request.headers.host) ?? null;
        if (domain === null) return root(request, reply);
        return onVerifiedDomain(
          domain,
          domains!,
          (d) => (d.rootLocation === null ? root(request, reply) : found(reply, d.rootLocation)),
          () => root(request, reply),
        );
      });
      const robots = robotsTxt(deps.robotsAllowRedirects ?? false);
      app.get('/robots.txt', (_request, reply) =>
        reply
          .headers({ 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'public, max-age=3600' })
          .send(robots),
      );
      app.get('/favicon.ico', (_request, reply) =>
        reply
          .headers({
            'content-type': 'image/svg+xml',
            'cache-control': 'public, max-age=86400',
            'x-content-type-options': 'nosniff',
            'content-security-policy': "default-src 'none'",
          })
          .send(FAVICON_SVG),
      );
      app.get<{ Params: { slug: string } }>(
        REDIRECT_ROUTE.url,
        { schema: servedSchema(REDIRECT_ROUTE) },
        (request, reply) => {
          // With no domain verified, one size check: the installation's own slugs, as before domains.
          const domain = domains?.peek(request.headers.host) ?? null;
          if (domain === null) return slugRoute(request, reply);
          return onVerifiedDomain(
            domain,
            domains!,
            (d) => domainSlugRoute(request, reply, d),
            () => slugRoute(request, reply),
          );
        },
      );
    },
  };
}
