/** The service's package entry: its module, its wiring and what other packages may use. */
export * from './app';
export { wireWriteApi, type WriteApiResources } from './wiring';
export { createClaimSettler, type SettleOutcome } from './links/settle-claims';
export { postgresClaimStore, type Claim, type ClaimStore } from './links/claims';
