export { normaliseHostname, ownHostnameOf, type HostnameResult } from './hostname';
export { isHighlyRestrictive, labelScripts } from './label-scripts';
export { DOMAIN_ERRORS } from './domain-errors';
export { DOMAIN_LIMITS } from './domain-limits';
export { domainResource, DOMAIN_EXAMPLE, type Domain, type DomainRow } from './domain-resource';
export {
  postgresDomainStore,
  type DomainStore,
  type DomainChanges,
  type CreateOutcome,
  type VerifyOutcome,
} from './domain-store';
export {
  CHALLENGE_LABEL,
  CHALLENGE_PREFIX,
  challengeName,
  challengeValue,
  newChallengeToken,
  dnsTxtLookup,
  type TxtAnswer,
  type TxtLookup,
  type TxtLookupOptions,
} from './challenge';
export { domainsEnv, type DomainsEnv } from './domains-settings';
