import type { FastifyInstance } from 'fastify';
import { accountOf, requireApiKey, type Authenticate, type RateLimiter } from '@shortlink/accounts';
import { errorResponseSchema, LINK_RESPONSE_FIELDS, linkResource, linkResponseProperties } from '@shortlink/http';
import type { LinkListQuery, LinkRecord } from '@shortlink/postgres';
import { INVALID_CURSOR } from '../analytics-errors';
import { encodeCursor } from './list-cursor';
import { parseListRequest } from './list-query';

export interface LinkListDeps {
  authenticate: Authenticate;
  /** Counts each authenticated request against its key's plan limit (429 past it). */
  rateLimiter: RateLimiter;
  listLinks: (query: LinkListQuery) => Promise<LinkRecord[]>;
  /** Where a link of the account stands in its list; null when it has no such link. */
  listPosition: (accountId: string, linkId: string) => Promise<bigint | null>;
  publicBaseUrl: string;
}

const linkListSchema = {
  type: 'object',
  properties: {
    links: {
      type: 'array',
      items: { type: 'object', properties: linkResponseProperties, required: LINK_RESPONSE_FIELDS },
    },
    nextCursor: { type: ['string', 'null'] },
  },
  required: ['links', 'nextCursor'],
} as const;

/**
 * `GET /api/v1/links`: the caller's links, newest first, a page at a time (an
 * addition to the spec, documented in the README). `nextCursor` is null on
 * the last page.
 */
export async function linkListRoutes(app: FastifyInstance, deps: LinkListDeps): Promise<void> {
  app.get<{ Querystring: Record<string, unknown> }>(
    '/api/v1/links',
    {
      onRequest: requireApiKey(deps.authenticate, deps.rateLimiter),
      schema: {
        // Any shape reaches the handler, which names the parameter at fault.
        querystring: { type: 'object' },
        response: { 200: linkListSchema, 400: errorResponseSchema, 401: errorResponseSchema },
      },
    },
    async (request) => {
      const accountId = accountOf(request).id;
      const parsed = parseListRequest(request.query);
      if (!parsed.ok) throw parsed.error;
      const { limit, after, tag, search } = parsed.request;
      let before: bigint | undefined;
      if (after !== undefined) {
        // Another account's link is no position in this list: the cursor is as invalid as a garbled one.
        before = (await deps.listPosition(accountId, after)) ?? undefined;
        if (before === undefined) throw INVALID_CURSOR;
      }
      // One more than asked tells whether a next page exists without a second query.
      const rows = await deps.listLinks({ accountId, limit: limit + 1, before, tag, search });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        links: page.map((link) => linkResource(link, deps.publicBaseUrl)),
        nextCursor: rows.length > limit && last ? encodeCursor(last.linkId) : null,
      };
    },
  );
}
