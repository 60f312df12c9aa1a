import type { FastifyInstance } from 'fastify';
import { accountOf, requireApiKey, type Authenticate, type RateLimiter } from '@shortlink/accounts';
import { ownHostnameOf } from '@shortlink/domains';
import { servedSchema } from '@shortlink/http';
import { checkedRange } from '../analytics/range-request';
import { ACCOUNT_ANALYTICS_ROUTE } from '../analytics-routes';
import type { AccountAnalytics, AccountAnalyticsRequest } from './account-analytics';
import { parseAccountQuery } from './account-query';

export interface AccountAnalyticsDeps {
  authenticate: Authenticate;
  rateLimiter: RateLimiter;
  /** The account's clicks over a range, grouped (readAccountAnalytics). */
  readAccountAnalytics: (request: AccountAnalyticsRequest, now: Date) => Promise<AccountAnalytics>;
  now: () => Date;
  /** Its host names the installation's own domain in `groupBy=domain` (ClickHouse holds `''` for it). */
  publicBaseUrl: string;
}

/**
 * `GET /api/v1/analytics`: the clicks of all the key's account's links. The
 * account is the key's; no parameter names one, so a roll-up never holds
 * another account's clicks.
 */
export async function accountAnalyticsRoutes(app: FastifyInstance, deps: AccountAnalyticsDeps): Promise<void> {
  const ownHostname = ownHostnameOf(deps.publicBaseUrl);
  app.get<{ Querystring: Record<string, unknown> }>(
    ACCOUNT_ANALYTICS_ROUTE.url,
    // Any query reaches the handler, so a repeated or odd parameter is named by the checks below.
    { onRequest: requireApiKey(deps.authenticate, deps.rateLimiter), schema: servedSchema(ACCOUNT_ANALYTICS_ROUTE) },
    async (request) => {
      const account = accountOf(request);
      const range = checkedRange(request.query.range, account.plan);
      const parsed = parseAccountQuery(request.query);
      if (!parsed.ok) throw parsed.error;
      const { groupBy, limit } = parsed.query;
      const { from, to, stats } = await deps.readAccountAnalytics(
        { accountId: account.id, range, groupBy, limit },
        deps.now(),
      );
      return {
        range,
        from,
        to,
        totalClicks: stats.totalClicks,
        uniqueVisitors: stats.uniqueVisitors,
        groupBy,
        rows:
          groupBy === 'domain' ? stats.rows.map((r) => (r.name === '' ? { ...r, name: ownHostname } : r)) : stats.rows,
      };
    },
  );
}
