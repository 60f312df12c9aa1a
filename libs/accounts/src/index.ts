export { PLANS, PLAN_NAMES, isPlan, type Plan } from './plans';
export { generateApiKey, hashApiKey, looksLikeApiKey, bearerToken, API_KEY_PREFIX, type NewApiKey } from './api-key';
export {
  createAccountWithKey,
  addKeyToAccount,
  listKeys,
  revokeKey,
  findAccountByKeyHash,
  type Account,
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
export { postgresAuthenticator } from './postgres-authenticator';
