import type { FastifyInstance } from 'fastify';
import { accountOf, requireApiKey } from '@shortlink/accounts';
import { servedSchema, type Dependency, type ServiceModule } from '@shortlink/http';
import { linkReadRoutes, ownedLink, type LinkReadDeps } from './links/link-route';
import { linkListRoutes, type LinkListDeps } from './links/list-route';
import { qrCodeRoutes } from './links/qr-route';
import { dashboardRoutes } from './dashboard/dashboard-routes';
import { accountReadRoutes } from './account/account-read-route';
import { clickExportRoutes, type ClickExportDeps } from './clicks/export-route';
import type { LinkStats } from './analytics/queries';
import type { Range, RangeDays } from './analytics/range';
import { checkedRange } from './analytics/range-request';
import { accountAnalyticsRoutes, type AccountAnalyticsDeps } from './account/account-analytics-route';
import { ANALYTICS_ROUTE } from './analytics-routes';

export const SERVICE_NAME = 'analytics';

export interface AnalyticsDeps extends LinkReadDeps, LinkListDeps, AccountAnalyticsDeps, ClickExportDeps {
  /** A link's clicks over a range, from ClickHouse (readRangeStats). */
  readStats: (
    link: { linkId: string; accountId: string; createdAt: Date },
    range: Range,
    now: Date,
  ) => Promise<{ period: RangeDays; stats: LinkStats }>;
  now: () => Date;
  /** What `/readyz` checks: Postgres (links, keys) and ClickHouse (clicks). */
  dependencies?: readonly Dependency[];
}

/**
 * The read API: link analytics (spec 4.2) from the ClickHouse aggregate
 * tables; a link with its preview, and the account's links, from Postgres.
 */
export function createAnalytics(deps: AnalyticsDeps): ServiceModule {
  return {
    name: SERVICE_NAME,
    crossOrigin: true,
    shedsLoad: true,
    dependencies: deps.dependencies,
    async routes(app: FastifyInstance) {
      app.decorateRequest('account', null);
      await linkReadRoutes(app, deps);
      await linkListRoutes(app, deps);
      await qrCodeRoutes(app, deps);
      await accountAnalyticsRoutes(app, deps);
      await accountReadRoutes(app, deps);
      await clickExportRoutes(app, deps);
      await dashboardRoutes(app);
      app.get<{ Params: { slug: string }; Querystring: { range?: unknown; domain?: unknown } }>(
        ANALYTICS_ROUTE.url,
        // Any query reaches the handler, so a repeated or odd `range` is named: `Invalid range`.
        { onRequest: requireApiKey(deps.authenticate, deps.rateLimiter), schema: servedSchema(ANALYTICS_ROUTE) },
        async (request) => {
          const account = accountOf(request);
          const range = checkedRange(request.query.range, account.plan);
          const { slug } = request.params;
          // Another account's link is "not found" too: existence does not leak.
          const link = await ownedLink(deps, slug, request.query, account.id);

          const { period, stats } = await deps.readStats(link, range, deps.now());
          return {
            slug,
            range,
            totalClicks: stats.totalClicks,
            uniqueVisitors: stats.uniqueVisitors,
            clicksOverTime: period.days.map((date) => ({ date, clicks: stats.daily.get(date) ?? 0 })),
            referrers: stats.breakdown.referrer,
            countries: stats.breakdown.country,
            devices: stats.breakdown.device,
            browsers: stats.breakdown.browser,
            triggers: stats.breakdown.trigger,
            filtered: stats.filtered,
            byRule: stats.routes.rule.map(({ position, clicks, uniqueVisitors }) => ({
              rule: position,
              clicks,
              uniqueVisitors,
            })),
            byVariant: stats.routes.variant.map(({ position, clicks, uniqueVisitors }) => ({
              variant: position,
              clicks,
              uniqueVisitors,
            })),
          };
        },
      );
    },
  };
}
