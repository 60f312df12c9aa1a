import type { FastifyInstance } from 'fastify';
import { accountOf, requireApiKey, type Authenticate, type RateLimiter } from '@shortlink/accounts';
import { servedSchema } from '@shortlink/http';
import { linkResource } from '@shortlink/links';
import type { LinkListQuery, LinkRecord } from '@shortlink/postgres';
import { INVALID_CURSOR } from '../analytics-errors';
import { LINK_LIST_ROUTE } from '../analytics-routes';
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

/**
 * `GET /api/v1/links`: the caller's links, newest first, a page at a time (an
 * addition to the spec, documented in docs/integrators.md). `nextCursor` is null on
 * the last page.
 */
export async function linkListRoutes(app: FastifyInstance, deps: LinkListDeps): Promise<void> {
  app.get<{ Querystring: Record<string, unknown> }>(
    LINK_LIST_ROUTE.url,
    // Any query reaches the handler, which names the parameter at fault.
    { onRequest: requireApiKey(deps.authenticate, deps.rateLimiter), schema: servedSchema(LINK_LIST_ROUTE) },
    async (request) => {
      const accountId = accountOf(request).id;
      const parsed = parseListRequest(request.query);
      if (!parsed.ok) throw parsed.error;
      const { limit, after, tag, search } = parsed.request;
      let before: bigint | undefined;
      if (after !== undefined) {
        // Another account's link is no position in this list: the cursor is as invalid as a garbled one.
        before = (await deps.listPosition(accountId, after)) ?? undefined;
        if (before === undefined) throw INVALID_CURSOR.withDetail('cursor is not a nextCursor of this list.', 'cursor');
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
