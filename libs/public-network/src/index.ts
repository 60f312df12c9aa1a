/** Connections to user-chosen addresses, public ones only, checked at connect time. */
export {
  createDestinationLookup,
  DEFAULT_DESTINATION_LOOKUP,
  type DestinationLookupOptions,
} from './destination-lookup';
export { isIpv6EmbeddingIpv4, refusingEmbeddedIpv4 } from './ipv6-embedding-ipv4';
export {
  createPublicNetwork,
  isBlockedAddressError,
  type PublicNetwork,
  type PublicNetworkPolicy,
} from './public-agents';
/** A test name server, for tests of this library's users. */
export { startDnsTestServer, type DnsBehaviour, type DnsTestServer } from './dns-test-server';
