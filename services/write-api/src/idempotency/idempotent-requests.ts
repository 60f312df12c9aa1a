import type { FastifyReply, FastifyRequest, onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import { accountOf } from '@shortlink/accounts';
import { IDEMPOTENCY_KEY_IN_PROGRESS, IDEMPOTENCY_KEY_INVALID, IDEMPOTENCY_KEY_REUSED } from '../write-api-errors';
import { decideOnSeenKey, isFinalResponse, type StoredResponse } from './idempotency-decision';
import { parseIdempotencyKey, requestHash } from './idempotency-key';
import type { IdempotencyStore, KeyRef } from './idempotency-store';
import type { Work } from './work-identity';

export interface IdempotencyDeps {
  store: IdempotencyStore;
  /** How long a retry waits for the request holding its key before answering 409. */
  waitMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** Response headers a replay repeats: those that describe the result, not the connection. */
const REPLAYED_HEADERS = ['location'] as const;
export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * Route hooks for the `Idempotency-Key` header (docs/decisions/0050-idempotency-key.md).
 * `preHandler` runs after authentication and body parsing: it takes the key
 * for this request, or answers with the first request's response (or 422, or
 * 409 after waiting). `onSend` stores what the holder answered before it
 * leaves, so a retry that arrives after the answer always finds it.
 */
export function idempotentRequests(deps: IdempotencyDeps): {
  preHandler: preHandlerAsyncHookHandler;
  onSend: onSendAsyncHookHandler<unknown>;
  /**
   * The work of a request that holds its key: what names the links it
   * creates (work-identity.ts). Null without a key.
   */
  workOf: (request: FastifyRequest) => Work | null;
  /**
   * The process is closing: a retry waiting on a held key answers 409 now,
   * to be sent again to another process, instead of holding the close for
   * up to `waitMs`.
   */
  stopWaiting: () => void;
} {
  const held = new WeakMap<FastifyRequest, { ref: KeyRef; owner: string; work: Work }>();
  let closing = false;

  async function preHandler(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const parsed = parseIdempotencyKey(request.headers['idempotency-key']);
    if (!parsed.ok) throw IDEMPOTENCY_KEY_INVALID.withDetail(parsed.detail);
    if (parsed.key === null) return undefined;
    const ref = { accountId: accountOf(request).id, key: parsed.key };
    const hash = requestHash(request.method, request.routeOptions.url ?? request.url, request.body);
    const deadline = deps.now() + deps.waitMs;
    for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
      const begun = await deps.store.begin(ref, hash);
      if (begun.kind === 'acquired') {
        const work = { id: `${begun.workId}:${hash}`, resumed: begun.resumed };
        held.set(request, { ref, owner: begun.owner, work });
        return undefined;
      }
      if (begun.kind === 'seen') {
        const decision = decideOnSeenKey(begun.seen, hash);
        if (decision.kind === 'mismatch') throw IDEMPOTENCY_KEY_REUSED;
        if (decision.kind === 'replay') return replay(reply, decision.response);
        if (closing || deps.now() >= deadline) throw IDEMPOTENCY_KEY_IN_PROGRESS;
        await deps.sleep(pause);
      }
    }
  }

  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const holding = held.get(request);
    if (holding === undefined) return payload;
    held.delete(request);
    const { ref, owner } = holding;
    try {
      if (isFinalResponse(reply.statusCode) && typeof payload === 'string') {
        const headers: Record<string, string> = {};
        for (const name of REPLAYED_HEADERS) {
          const value = reply.getHeader(name);
          if (typeof value === 'string') headers[name] = value;
        }
        await deps.store.complete(ref, owner, { status: reply.statusCode, headers, body: payload });
      } else {
        await deps.store.release(ref, owner);
      }
    } catch (err) {
      // The answer stands: the work is done. A retry meanwhile waits, then
      // gets 409 until the lease runs out and the key is taken over.
      request.log.error({ err, key: ref.key }, 'could not record the outcome of an idempotent request');
    }
    return payload;
  }

  return {
    preHandler,
    onSend,
    workOf: (request) => held.get(request)?.work ?? null,
    stopWaiting: () => void (closing = true),
  };
}

function replay(reply: FastifyReply, response: StoredResponse): FastifyReply {
  return reply
    .code(response.status)
    .headers(response.headers)
    .header(REPLAYED_HEADER, 'true')
    .type('application/json; charset=utf-8')
    .send(response.body);
}
