import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { accountOf } from '@shortlink/accounts';
import { servedSchema } from '@shortlink/http';
import {
  newMessageId,
  newWebhookSecret,
  sealSecret,
  WEBHOOK_ERRORS,
  WEBHOOK_LIMITS,
  WEBHOOK_TEST_EVENT,
  webhookDisabled,
  webhookNotFound,
  webhookResource,
} from '@shortlink/webhooks';
import type { idempotentRequests } from '../idempotency/idempotent-requests';
import type { ServiceAddresses } from '../links/rules/self-link';
import {
  decodeAttemptCursor,
  decodeWebhookCursor,
  encodeAttemptCursor,
  encodeWebhookCursor,
} from './rules/page-cursors';
import { parsePageRequest } from './rules/page-request';
import { validateReplay } from './rules/replay-request';
import { validateCreateWebhook, validateWebhookChange } from './rules/webhook-body';
import type { WebhookUrlPolicy } from './rules/webhook-url';
import type { QueuedMessage, StoredWebhook, WebhookStore } from './stores/webhook-store';
import {
  CREATE_WEBHOOK_ROUTE,
  DELETE_WEBHOOK_ROUTE,
  GET_WEBHOOK_ROUTE,
  LIST_DELIVERIES_ROUTE,
  LIST_WEBHOOKS_ROUTE,
  REPLAY_ROUTE,
  ROTATE_SECRET_ROUTE,
  TEST_WEBHOOK_ROUTE,
  UPDATE_WEBHOOK_ROUTE,
} from './webhook-routes';

export interface WebhooksApiDeps {
  store: WebhookStore;
  /** The key-encryption key that seals secrets (WEBHOOKS_ENCRYPTION_KEY, or the installation's own). */
  sealingKey: () => Promise<Buffer>;
  /** WEBHOOKS_ALLOW_HTTP */
  allowHttp: boolean;
  /** WEBHOOKS_ALLOW_PRIVATE_NETWORKS */
  allowPrivateNetworks: boolean;
  now: () => Date;
  newId: () => string;
  newSecret?: () => string;
  newMessageId?: () => string;
}

/** What the webhook routes share with the link routes of the same module. */
export interface WebhookRouteContext {
  authenticated: onRequestAsyncHookHandler;
  service: ServiceAddresses;
  idempotent: ReturnType<typeof idempotentRequests>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY_MS = 86_400_000;

/** `/api/v1/webhooks…` (docs/webhooks.md): each route names the account's own webhook, or answers 404. */
export function registerWebhookRoutes(app: FastifyInstance, deps: WebhooksApiDeps, context: WebhookRouteContext): void {
  const policy: WebhookUrlPolicy = {
    allowHttp: deps.allowHttp,
    allowPrivateNetworks: deps.allowPrivateNetworks,
    service: context.service,
  };
  const { authenticated, idempotent } = context;
  const secret = deps.newSecret ?? newWebhookSecret;
  const messageId = deps.newMessageId ?? newMessageId;

  /** The account's webhook of that id: any other id (malformed, unknown, another account's) is the same 404. */
  async function ownWebhook(accountId: string, id: string): Promise<StoredWebhook> {
    const webhook = UUID.test(id) ? await deps.store.find(accountId, id) : null;
    if (webhook === null) throw webhookNotFound(id);
    return webhook;
  }

  // No Idempotency-Key here: its stored answer would keep the secret in the clear (docs/webhooks.md).
  app.post(
    CREATE_WEBHOOK_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(CREATE_WEBHOOK_ROUTE) },
    async (request, reply) => {
      const account = accountOf(request);
      const validated = validateCreateWebhook(request.body, policy);
      if (!validated.ok) throw validated.error;
      const plain = secret();
      const sealed = sealSecret(await deps.sealingKey(), plain);
      const created = await deps.store.create(
        { webhookId: deps.newId(), accountId: account.id, createdAt: deps.now(), ...validated.value },
        sealed,
        WEBHOOK_LIMITS.perAccount,
      );
      if (created === 'limit_reached') {
        throw WEBHOOK_ERRORS.limitReached.withDetail(`This account has ${WEBHOOK_LIMITS.perAccount} webhooks already.`);
      }
      return reply.code(201).send({ ...webhookResource(created), secret: plain });
    },
  );

  app.get(
    LIST_WEBHOOKS_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(LIST_WEBHOOKS_ROUTE) },
    async (request) => {
      const parsed = parsePageRequest(request.query as Record<string, unknown>, decodeWebhookCursor);
      if (!parsed.ok) throw parsed.error;
      const { limit } = parsed.page;
      const rows = await deps.store.list(accountOf(request).id, { ...parsed.page, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        webhooks: page.map(webhookResource),
        nextCursor:
          rows.length > limit && last
            ? encodeWebhookCursor({ createdAtMicros: last.createdAtMicros, webhookId: last.webhookId })
            : null,
      };
    },
  );

  app.get<{ Params: { id: string } }>(
    GET_WEBHOOK_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(GET_WEBHOOK_ROUTE) },
    async (request) => webhookResource(await ownWebhook(accountOf(request).id, request.params.id)),
  );

  app.patch<{ Params: { id: string } }>(
    UPDATE_WEBHOOK_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(UPDATE_WEBHOOK_ROUTE) },
    async (request) => {
      const account = accountOf(request);
      // An unknown webhook is told before a bad body: nothing about another account's webhook shows through.
      await ownWebhook(account.id, request.params.id);
      const validated = validateWebhookChange(request.body, policy);
      if (!validated.ok) throw validated.error;
      const changed = await deps.store.update(account.id, request.params.id, validated.value, deps.now());
      if (changed === null) throw webhookNotFound(request.params.id);
      return webhookResource(changed);
    },
  );

  app.delete<{ Params: { id: string } }>(
    DELETE_WEBHOOK_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(DELETE_WEBHOOK_ROUTE) },
    async (request, reply) => {
      const id = request.params.id;
      if (!UUID.test(id) || !(await deps.store.remove(accountOf(request).id, id))) throw webhookNotFound(id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    ROTATE_SECRET_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(ROTATE_SECRET_ROUTE) },
    async (request) => {
      const id = request.params.id;
      const plain = secret();
      const sealed = sealSecret(await deps.sealingKey(), plain);
      const rotated = UUID.test(id)
        ? await deps.store.rotateSecret(accountOf(request).id, id, sealed, WEBHOOK_LIMITS.previousSecretHours)
        : null;
      if (rotated === null) throw webhookNotFound(id);
      return { secret: plain, previousSecretExpiresAt: rotated.previousExpiresAt?.toISOString() ?? null };
    },
  );

  app.post<{ Params: { id: string } }>(
    TEST_WEBHOOK_ROUTE.url,
    {
      onRequest: authenticated,
      preHandler: idempotent.preHandler,
      onSend: idempotent.onSend,
      schema: servedSchema(TEST_WEBHOOK_ROUTE),
    },
    async (request, reply) => {
      const webhook = await ownWebhook(accountOf(request).id, request.params.id);
      if (!webhook.enabled) throw webhookDisabled(webhook.disabledReason);
      const message: QueuedMessage = {
        messageId: messageId(),
        eventType: WEBHOOK_TEST_EVENT,
        payload: JSON.stringify({
          type: WEBHOOK_TEST_EVENT,
          timestamp: deps.now().toISOString(),
          data: { webhookId: webhook.webhookId },
        }),
      };
      await deps.store.enqueue(webhook.webhookId, message);
      return reply.code(202).send({ messageId: message.messageId });
    },
  );

  app.get<{ Params: { id: string } }>(
    LIST_DELIVERIES_ROUTE.url,
    { onRequest: authenticated, schema: servedSchema(LIST_DELIVERIES_ROUTE) },
    async (request) => {
      const webhook = await ownWebhook(accountOf(request).id, request.params.id);
      const parsed = parsePageRequest(request.query as Record<string, unknown>, decodeAttemptCursor);
      if (!parsed.ok) throw parsed.error;
      const { limit } = parsed.page;
      const since = new Date(deps.now().getTime() - WEBHOOK_LIMITS.attemptsKeptDays * DAY_MS);
      const rows = await deps.store.attempts(webhook.webhookId, { ...parsed.page, limit: limit + 1 }, since);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        deliveries: page.map(({ attemptId: _id, attemptedAt, ...attempt }) => ({
          ...attempt,
          attemptedAt: attemptedAt.toISOString(),
        })),
        nextCursor: rows.length > limit && last ? encodeAttemptCursor(last.attemptId) : null,
      };
    },
  );

  app.post<{ Params: { id: string } }>(
    REPLAY_ROUTE.url,
    {
      onRequest: authenticated,
      preHandler: idempotent.preHandler,
      onSend: idempotent.onSend,
      schema: servedSchema(REPLAY_ROUTE),
    },
    async (request, reply) => {
      const webhook = await ownWebhook(accountOf(request).id, request.params.id);
      const now = deps.now();
      const validated = validateReplay(request.body, webhook.events, now);
      if (!validated.ok) throw validated.error;
      if (!webhook.enabled) throw webhookDisabled(webhook.disabledReason);
      const replay = { replayId: deps.newId(), requestedAt: now, ...validated.value };
      await deps.store.requestReplay(webhook.webhookId, replay);
      return reply.code(202).send({
        replayId: replay.replayId,
        webhookId: webhook.webhookId,
        since: replay.since.toISOString(),
        until: replay.until?.toISOString() ?? null,
        events: replay.events,
        requestedAt: now.toISOString(),
      });
    },
  );
}
