import type { FastifyInstance } from 'fastify';
import { accountOf, requireApiKey } from '@shortlink/accounts';
import { servedSchema } from '@shortlink/http';
import { linkResource, qrScanUrl } from '@shortlink/links';
import { QR_CODE_ROUTE } from '../analytics-routes';
import { ownedLink, type LinkReadDeps } from './link-route';
import { parseQrRequest, renderQrCode } from './qr-code';

const MEDIA_TYPES = { svg: 'image/svg+xml', png: 'image/png' } as const;

/**
 * `GET /api/v1/links/:slug/qr`: the QR code of one of the caller's links (an
 * addition to the spec, documented in docs/integrators.md); another account's
 * link is a 404, as every read of it.
 */
export async function qrCodeRoutes(app: FastifyInstance, deps: Omit<LinkReadDeps, 'findPreview'>): Promise<void> {
  app.get<{ Params: { slug: string }; Querystring: Record<string, unknown> }>(
    QR_CODE_ROUTE.url,
    // Any query reaches the handler, which names the parameter at fault.
    { onRequest: requireApiKey(deps.authenticate, deps.rateLimiter), schema: servedSchema(QR_CODE_ROUTE) },
    async (request, reply) => {
      const parsed = parseQrRequest(request.query);
      if (!parsed.ok) throw parsed.error;
      const link = await ownedLink(deps, request.params.slug, request.query, accountOf(request).id);
      const { format } = parsed.request;
      const image = await renderQrCode(qrScanUrl(linkResource(link, deps.publicBaseUrl).shortUrl), parsed.request);
      return (
        reply
          .header('content-type', MEDIA_TYPES[format])
          .header('content-disposition', `inline; filename="${link.slug}-qr.${format}"`)
          // The code of a slug never changes, but it is the caller's: kept by the caller only.
          .header('cache-control', 'private, max-age=3600')
          .send(image)
      );
    },
  );
}
