export { createPool, openDatabase, openServiceDatabase, type PoolOptions } from './pool';
export { migrate, readMigrations, type Migration, type MigrateResult } from './migrate';
export { MIGRATIONS_DIR } from './paths';
export { CHANNELS, domainChangedPayload, linkChangedPayload, parsePayloadPair } from './channels';
export { commitSlugClaim, commitSlugClaims, findUnsettledClaimOwner, type ClaimRef } from './slug-claims';
export { instanceSecret } from './instance-secret';
export {
  findLinkBySlug,
  findLinksBySlugs,
  findLinkPreview,
  linkRecord,
  type LinkRecord,
  type LinkRow,
  type PreviewRecord,
  type ReadOptions,
  withReadTimeout,
} from './links';
export { listLinks, listPosition, containsPattern, type LinkListQuery } from './link-list';
export {
  REDIRECTOR_LEASE_MS,
  renewRedirectorLease,
  releaseRedirectorLease,
  liveRedirectorLeases,
  type LiveLease,
} from './redirector-leases';
export { postgresReachable } from './reachable';
export { servedDomain, servedDomains, verifiedHostnames, type ServedDomain } from './served-domains';
export { CommitUnconfirmed, inTransaction, type Statements, type TransactionOptions } from './transaction';
