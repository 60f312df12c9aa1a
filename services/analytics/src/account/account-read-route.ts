import type { FastifyInstance } from 'fastify';
import { accountOf, PLANS, requireApiKey, type Authenticate, type RateLimiter } from '@shortlink/accounts';
import { servedSchema } from '@shortlink/http';
import { ACCOUNT_READ_ROUTE } from '../analytics-routes';

export interface AccountReadDeps {
  authenticate: Authenticate;
  rateLimiter: RateLimiter;
}

/**
 * `GET /api/v1/account`: the key's account and its plan's limits, as Dub's workspace read and Bitly's plan limits
 * tell theirs. It reads nothing but the key's own answer, so it costs no store round trip past authentication.
 */
export async function accountReadRoutes(app: FastifyInstance, deps: AccountReadDeps): Promise<void> {
  app.get(
    ACCOUNT_READ_ROUTE.url,
    { onRequest: requireApiKey(deps.authenticate, deps.rateLimiter), schema: servedSchema(ACCOUNT_READ_ROUTE) },
    async (request) => {
      const account = accountOf(request);
      const plan = PLANS[account.plan];
      return {
        accountId: account.id,
        name: account.name,
        plan: account.plan,
        analyticsRanges: plan.analyticsRanges,
        minCustomSlugLength: plan.minCustomSlugLength,
      };
    },
  );
}
