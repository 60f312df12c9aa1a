import type { LookupFunction } from 'node:net';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import {
  createDestinationLookup,
  DEFAULT_DESTINATION_LOOKUP,
  type DestinationLookupOptions,
} from './destination-lookup';
import { refusingEmbeddedIpv4 } from './ipv6-embedding-ipv4';

export interface PublicNetworkPolicy {
  /** Lifts the public-address rule (loopback, private, link-local, metadata). Local testing only. */
  allowPrivateNetworks: boolean;
  /** Single addresses let through while private networks stay refused (tests: a "public" server on loopback). */
  allowAddresses?: readonly string[];
  /** How names are resolved (destination-lookup.ts); tests name their own name server. */
  dns?: DestinationLookupOptions;
  /**
   * Reuses connections (default: no). Safe for the rule: a connection is
   * checked when it is made, and stays to the address checked.
   */
  keepAlive?: boolean;
}

/** The agents and the lookup every request to a user's address goes through. */
export interface PublicNetwork {
  agents: { 'http:': RequestFilteringHttpAgent; 'https:': RequestFilteringHttpsAgent };
  lookup: LookupFunction;
}

/**
 * Agents that check the address inside the connection's own DNS lookup
 * (request-filtering-agent), so the address checked is the one connected to
 * and DNS rebinding cannot slip through; names resolved on the event loop,
 * IPv6 forms embedding IPv4 refused.
 */
export function createPublicNetwork(policy: PublicNetworkPolicy): PublicNetwork {
  const agentOptions = {
    keepAlive: policy.keepAlive ?? false,
    allowPrivateIPAddress: policy.allowPrivateNetworks,
    allowIPAddressList: [...(policy.allowAddresses ?? [])],
  };
  return {
    agents: {
      'http:': new RequestFilteringHttpAgent(agentOptions),
      'https:': new RequestFilteringHttpsAgent(agentOptions),
    },
    lookup: refusingEmbeddedIpv4(createDestinationLookup(policy.dns ?? DEFAULT_DESTINATION_LOOKUP)),
  };
}

/** request-filtering-agent reports a refused address with this wording and no code (and so does ipv6-embedding-ipv4). */
const BLOCKED_ADDRESS = /^DNS lookup .* is not allowed/;

/** Whether a request failed because its address is not public. */
export function isBlockedAddressError(err: unknown): boolean {
  return BLOCKED_ADDRESS.test(String((err as Error | undefined)?.message ?? err));
}
