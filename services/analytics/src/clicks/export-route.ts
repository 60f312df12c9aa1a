import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { accountOf, requireApiKey, type Authenticate, type RateLimiter } from '@shortlink/accounts';
import { servedSchema } from '@shortlink/http';
import { CLICK_EXPORT_ROUTE } from './export-api-route';
import { exportRateLimited } from './export-errors';
import type { ExportQuery } from './export-query';
import { parseExportRequest } from './export-request';

export interface ClickExportDeps {
  authenticate: Authenticate;
  rateLimiter: RateLimiter;
  /** Exports per account and window (EXPORT_LIMITS), in the store of the requests' limits. */
  exportLimiter: RateLimiter;
  /** The export as ClickHouse writes it (streamExport). */
  exportClicks: (query: ExportQuery, signal: AbortSignal) => Promise<Readable>;
  now: () => Date;
}

const MEDIA_TYPES = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
} as const;

const fileTime = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/**
 * `GET /api/v1/clicks/export`: the account's raw clicks, streamed as ClickHouse writes them (docs/data-export.md,
 * docs/decisions/0070-raw-click-export.md). The body is piped with back-pressure, and a client that goes away
 * withdraws the query.
 */
export async function clickExportRoutes(app: FastifyInstance, deps: ClickExportDeps): Promise<void> {
  app.get<{ Querystring: Record<string, unknown> }>(
    CLICK_EXPORT_ROUTE.url,
    { onRequest: requireApiKey(deps.authenticate, deps.rateLimiter), schema: servedSchema(CLICK_EXPORT_ROUTE) },
    async (request, reply) => {
      const account = accountOf(request);
      const parsed = parseExportRequest(request.query, account.plan, deps.now());
      if (!parsed.ok) throw parsed.error;
      const { format, from, to, slug, tag, after, limit } = parsed.request;
      const counted = await deps.exportLimiter.take(account.id, account.plan);
      if (!counted.allowed) throw exportRateLimited(account.plan, Math.max(1, Math.ceil(counted.resetMs / 1000)));

      const withdraw = new AbortController();
      // 'close' also follows a complete answer, when there is nothing left to withdraw.
      reply.raw.once('close', () => withdraw.abort());
      const body = await deps.exportClicks(
        { accountId: account.id, format, from, to, slug, tag, after, limit },
        withdraw.signal,
      );
      const name = `clicks-${fileTime(from)}-${fileTime(to)}.${format}`;
      return reply
        .header('content-type', MEDIA_TYPES[format])
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
}
