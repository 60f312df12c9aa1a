import type { FastifyInstance } from 'fastify';
import { accountOf, requireApiKey, type Authenticate, type RateLimiter } from '@shortlink/accounts';
import { addJsonBodyParser, servedSchema, type Dependency, type ServiceModule } from '@shortlink/http';
import { linkKeyOf } from '@shortlink/links';
import { idempotentRequests, type IdempotencyDeps } from './idempotency/idempotent-requests';
import { assembleBulkResults, bulkItems, validateBulkItem } from './links/bulk-create';
import { changeLink, type ChangeLinkDeps } from './links/change-link';
import { createLink, createLinks, type CreateLinkDeps } from './links/create-link';
import { validateCreateLink } from './links/rules/create-link-validation';
import { serviceAddresses } from './links/rules/self-link';
import { validateUpdateLink } from './links/rules/update-link-validation';
import { LIMITS, rejectionError } from './write-api-errors';
import { registerWebhookRoutes, type WebhooksApiDeps } from './webhooks/webhooks-api';
import { registerDomainRoutes, type DomainsApiDeps } from './domains/domains-api';
import { BULK_CREATE_ROUTE, CREATE_LINK_ROUTE, DELETE_LINK_ROUTE, UPDATE_LINK_ROUTE } from './write-api-routes';

export const SERVICE_NAME = 'write-api';

export interface WriteApiDeps extends CreateLinkDeps, ChangeLinkDeps {
  authenticate: Authenticate;
  /** Counts each authenticated request against its key's plan limit (429 past it). */
  rateLimiter: RateLimiter;
  /** The Idempotency-Key store and how long a retry waits for the request holding its key. */
  idempotency: IdempotencyDeps;
  /** The webhooks API's store, key and settings (docs/webhooks.md). */
  webhooks: WebhooksApiDeps;
  /** The domains API's store and DNS lookups (docs/domains.md). */
  domains: DomainsApiDeps;
  /** Started and stopped with the module: the Kafka producer, for one. */
  start?: () => Promise<void>;
  stop?: () => Promise<void>;
  /** What `/readyz` checks: Postgres and the event log, both needed for every write. */
  dependencies?: readonly Dependency[];
}

/**
 * Accepts link creation (spec 4.1), changes and deletions, and appends
 * LinkCreated, LinkUpdated and LinkDeleted events to Kafka; manages the
 * accounts' webhooks (their deliveries are the webhook dispatcher's) and
 * branded domains.
 */
export function createWriteApi(deps: WriteApiDeps): ServiceModule {
  const service = serviceAddresses(deps.publicBaseUrl);
  const idempotent = idempotentRequests(deps.idempotency);
  return {
    name: SERVICE_NAME,
    crossOrigin: true,
    shedsLoad: true,
    start: deps.start,
    stop: deps.stop,
    dependencies: deps.dependencies,
    async routes(app: FastifyInstance) {
      app.decorateRequest('account', null);
      app.addHook('preClose', async () => idempotent.stopWaiting());
      // Create bodies are parsed without the process-wide refusal of text no
      // store can hold: each link's fields are checked by their own rules
      // (validateCreateLink), so a custom slug holding U+0000 gets the slug's text,
      // and one bulk link's problem stays its own.
      await app.register(async (scope) => {
        scope.removeContentTypeParser('application/json');
        addJsonBodyParser(scope, { refuseUnstorable: false });
        scope.post(
          CREATE_LINK_ROUTE.url,
          {
            onRequest: requireApiKey(deps.authenticate, deps.rateLimiter),
            preHandler: idempotent.preHandler,
            onSend: idempotent.onSend,
            // The body's rules live in validateCreateLink, which names each problem the way the spec does.
            schema: servedSchema(CREATE_LINK_ROUTE),
          },
          async (request, reply) => {
            const account = accountOf(request);
            const validated = validateCreateLink(request.body, account.plan, service);
            if (!validated.ok) throw rejectionError(validated.rejection);
            const link = await createLink(deps, account, validated.input, idempotent.workOf(request));
            return reply.code(201).header('location', link.shortUrl).send(link);
          },
        );
        scope.post(
          BULK_CREATE_ROUTE.url,
          {
            onRequest: requireApiKey(deps.authenticate, deps.rateLimiter),
            preHandler: idempotent.preHandler,
            onSend: idempotent.onSend,
            bodyLimit: LIMITS.bulkBodyLimitBytes,
            schema: servedSchema(BULK_CREATE_ROUTE),
          },
          async (request, reply) => {
            const account = accountOf(request);
            const batch = bulkItems(request.body);
            if (!batch.ok) throw batch.error;
            // The same validation and the same create as one link at a time; the
            // valid links then share each round trip, and each failure stays its own.
            const validated = batch.items.map((item) => validateBulkItem(item, account.plan, service));
            // Each valid link keeps its place among all items: a retry names it the same way even if
            // another item's validity changed meanwhile (the account's plan, say).
            const outcomes = await createLinks(
              deps,
              account,
              validated.flatMap((v) => (v.ok ? [v.input] : [])),
              idempotent.workOf(request),
              validated.flatMap((v, position) => (v.ok ? [position] : [])),
            );
            const results = assembleBulkResults(validated, outcomes, (err) =>
              request.log.error({ err }, 'a link of a bulk create failed'),
            );
            return reply.code(200).send({ results });
          },
        );
      });
      app.patch<{ Params: { slug: string }; Querystring: { domain?: string } }>(
        UPDATE_LINK_ROUTE.url,
        // The body's rules live in validateUpdateLink, with creation's texts.
        { onRequest: requireApiKey(deps.authenticate, deps.rateLimiter), schema: servedSchema(UPDATE_LINK_ROUTE) },
        async (request) => {
          const account = accountOf(request);
          const validated = validateUpdateLink(request.body, service);
          if (!validated.ok) throw rejectionError(validated.rejection);
          const key = linkKeyOf(request.params.slug, request.query, service.publicHostname);
          return changeLink(deps, account, key, { kind: 'update', changes: validated.changes });
        },
      );
      app.delete<{ Params: { slug: string }; Querystring: { domain?: string } }>(
        DELETE_LINK_ROUTE.url,
        { onRequest: requireApiKey(deps.authenticate, deps.rateLimiter), schema: servedSchema(DELETE_LINK_ROUTE) },
        async (request, reply) => {
          const key = linkKeyOf(request.params.slug, request.query, service.publicHostname);
          await changeLink(deps, accountOf(request), key, { kind: 'delete' });
          return reply.code(204).send();
        },
      );
      registerWebhookRoutes(app, deps.webhooks, {
        authenticated: requireApiKey(deps.authenticate, deps.rateLimiter),
        service,
        idempotent,
      });
      registerDomainRoutes(app, deps.domains, {
        authenticated: requireApiKey(deps.authenticate, deps.rateLimiter),
        service,
        publicBaseUrl: deps.publicBaseUrl,
      });
    },
  };
}
