import type { LookupAddress } from 'node:dns';
import { isIPv6, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IPv6 forms that carry an IPv4 address and that the address filter (request-filtering-agent) counts as public unicast:
 * IPv4-compatible (`::a.b.c.d`, deprecated, yet some stacks route it to the IPv4 address) and local-use NAT64 (RFC
 * 8215, `64:ff9b:1::/48`), refused whole, whatever they hold. The filter refuses the other embedding forms
 * (IPv4-mapped, IPv4-translated, well-known NAT64, 6to4, Teredo) as special-purpose ranges.
 */
const EMBEDDING_RANGES = [ipaddr.parseCIDR('::/96'), ipaddr.parseCIDR('64:ff9b:1::/48')] as const;

export function isIpv6EmbeddingIpv4(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!isIPv6(bare)) return false;
  // The URL parser writes every IPv6 spelling (`::127.0.0.1` too) in the hex form ipaddr.js reads.
  const parsed = ipaddr.IPv6.parse(new URL(`http://[${bare}]`).hostname.slice(1, -1));
  return EMBEDDING_RANGES.some((range) => parsed.match(range));
}

/** Worded as the filter words its refusals, so both are classified alike (`blocked_address`). */
const refusal = (address: string, hostname: string) =>
  new Error(`DNS lookup ${address} (host: ${hostname}) is not allowed: an IPv6 address that embeds an IPv4 address`);

/** `lookup`, refusing any answer of those forms, so a host name that resolves to one is refused as well. */
export function refusingEmbeddedIpv4(lookup: LookupFunction): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, options, (err, found, family) => {
      if (err) return callback(err, found, family);
      if (Array.isArray(found)) {
        const bad = found.find((a: LookupAddress) => isIpv6EmbeddingIpv4(a.address));
        return bad ? callback(refusal(bad.address, hostname), []) : callback(null, found);
      }
      if (isIpv6EmbeddingIpv4(found)) return callback(refusal(found, hostname), '', 0);
      callback(null, found, family);
    });
}
