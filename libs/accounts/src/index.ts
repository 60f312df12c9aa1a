export { PLANS, PLAN_NAMES, isPlan, type Plan } from './plans';
export { generateApiKey, hashApiKey, looksLikeApiKey, bearerToken, API_KEY_PREFIX, type NewApiKey } from './api-key';
export {
  createAccountWithKey,
  addKeyToAccount,
  listKeys,
  revokeKey,
  findAccountByKeyHash,
  findActiveKeyByHash,
  type Account,
  type ActiveKey,
  type ApiKeyRow,
  type IssuedKey,
} from './store';
export {
  createAuthenticator,
  requireApiKey,
  accountOf,
  UNAUTHORIZED,
  type Authenticate,
  type AuthenticatorOptions,
} from './authenticator';
export { postgresAuthenticator, KEY_CACHE_TTL_MS } from './postgres-authenticator';
export { memoryApiKeys, type MemoryApiKeys } from './memory-api-keys';
export {
  openRateLimiter,
  memoryRateLimiter,
  redisRateLimiter,
  rateLimitHeaders,
  enforceRateLimit,
  RATE_LIMIT_WINDOW_SECONDS,
  REDIS_KEY_PREFIX,
  type RateLimiter,
  type RateLimitDecision,
  type RateLimitSettings,
  type RateLimitLogger,
  type PlanRateLimits,
  type RateLimitPolicy,
  type RedisRateLimiterOptions,
} from './rate-limit';
