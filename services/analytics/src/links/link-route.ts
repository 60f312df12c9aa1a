import type { FastifyInstance } from 'fastify';
import { accountOf, requireApiKey, type Authenticate, type RateLimiter } from '@shortlink/accounts';
import { ownHostnameOf } from '@shortlink/domains';
import { servedSchema } from '@shortlink/http';
import { LINK_NOT_SETTLED, linkKeyOf, linkNotFound, linkResource } from '@shortlink/links';
import type { LinkRecord, PreviewRecord } from '@shortlink/postgres';
import { LINK_READ_ROUTE } from '../analytics-routes';

export interface LinkReadDeps {
  authenticate: Authenticate;
  /** Counts each authenticated request against its key's plan limit (429 past it). */
  rateLimiter: RateLimiter;
  findLink: (slug: string) => Promise<LinkRecord | null>;
  /** The account of the slug's pending claim, if any: asked only of a slug with no link. */
  findUnsettledOwner: (slug: string) => Promise<string | null>;
  findPreview: (linkId: string) => Promise<PreviewRecord | null>;
  publicBaseUrl: string;
}

/**
 * The link a key may read, named by its slug and, on a branded domain, `?domain=` (`query`), or 404 for unknown
 * slugs and other accounts' links alike; for the key's own link whose create is not settled (its 201 may have gone
 * out before its claim's commit landed), 503 to try again, as the write API answers a change of it.
 */
export async function ownedLink(
  deps: Pick<LinkReadDeps, 'findLink' | 'findUnsettledOwner' | 'publicBaseUrl'>,
  slug: string,
  query: unknown,
  accountId: string,
): Promise<LinkRecord> {
  const key = linkKeyOf(slug, query, ownHostnameOf(deps.publicBaseUrl));
  const link = await deps.findLink(key);
  if (link === null && (await deps.findUnsettledOwner(key)) === accountId) throw LINK_NOT_SETTLED;
  if (!link || link.accountId !== accountId) throw linkNotFound(key);
  return link;
}

/**
 * `GET /api/v1/links/:slug`: the Link object of spec 2.1 plus its preview
 * (an addition to the spec, documented in docs/integrators.md).
 */
export async function linkReadRoutes(app: FastifyInstance, deps: LinkReadDeps): Promise<void> {
  app.get<{ Params: { slug: string }; Querystring: { domain?: string } }>(
    LINK_READ_ROUTE.url,
    { onRequest: requireApiKey(deps.authenticate, deps.rateLimiter), schema: servedSchema(LINK_READ_ROUTE) },
    async (request) => {
      const link = await ownedLink(deps, request.params.slug, request.query, accountOf(request).id);
      const found = await deps.findPreview(link.linkId);
      // A preview of an earlier destination does not describe the link: pending until the new one is fetched.
      const preview = found && describesLink(found, link) ? found : null;
      return {
        ...linkResource(link, deps.publicBaseUrl),
        preview: preview
          ? {
              status: preview.status,
              title: preview.title,
              description: preview.description,
              image: preview.image,
              fetchedAt: preview.occurredAt.toISOString(),
            }
          : { status: 'pending', title: null, description: null, image: null, fetchedAt: null },
      };
    },
  );
}

/** Whether a preview was fetched for the link's current destination. */
function describesLink(preview: PreviewRecord, link: LinkRecord): boolean {
  if (preview.destinationUrl === null) return link.version === 1;
  return preview.destinationUrl === link.destinationUrl;
}
