/**
 * IPv4 blocks no visitor on the public internet comes from (RFC 6890 and the
 * IANA special-purpose registry): this network, private, shared (carrier-grade
 * NAT), loopback, link-local, IETF protocol assignments, documentation,
 * 6to4 relay, benchmarking, multicast and reserved. As [first address, prefix length].
 */
const SPECIAL_IPV4: readonly (readonly [number, number])[] = [
  [0x00000000, 8], // 0.0.0.0/8
  [0x0a000000, 8], // 10.0.0.0/8
  [0x64400000, 10], // 100.64.0.0/10
  [0x7f000000, 8], // 127.0.0.0/8
  [0xa9fe0000, 16], // 169.254.0.0/16
  [0xac100000, 12], // 172.16.0.0/12
  [0xc0000000, 24], // 192.0.0.0/24
  [0xc0000200, 24], // 192.0.2.0/24
  [0xc0586300, 24], // 192.88.99.0/24
  [0xc0a80000, 16], // 192.168.0.0/16
  [0xc6120000, 15], // 198.18.0.0/15
  [0xc6336400, 24], // 198.51.100.0/24
  [0xcb007100, 24], // 203.0.113.0/24
  [0xe0000000, 3], // 224.0.0.0/4 and 240.0.0.0/4
];

const DOTTED = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const FIRST_GROUPS = /^([0-9a-f]{1,4}):([0-9a-f]{0,4})/;

/**
 * Whether a canonical client address (dotted IPv4, or RFC 5952 IPv6, as `canonicalClientAddress` writes) can be a
 * visitor's on the public internet. A country database answers for reserved blocks too (203.0.113.0/24 comes out `AU`),
 * so only a public address is looked up. Written by hand, a small fraction of ipaddr.js's microseconds an address; the
 * unit test holds it to ipaddr.js's ranges.
 */
export function isPublicAddress(ip: string): boolean {
  const dotted = DOTTED.exec(ip);
  if (dotted) {
    const value =
      ((Number(dotted[1]) << 24) | (Number(dotted[2]) << 16) | (Number(dotted[3]) << 8) | Number(dotted[4])) >>> 0;
    for (const [first, length] of SPECIAL_IPV4) {
      if (value >>> (32 - length) === first >>> (32 - length)) return false;
    }
    return true;
  }
  const groups = FIRST_GROUPS.exec(ip);
  if (!groups) return false;
  const first = parseInt(groups[1]!, 16);
  const second = groups[2] ? parseInt(groups[2], 16) : 0;
  // Global unicast is 2000::/3; in it, IETF protocol assignments (2001::/23:
  // Teredo, benchmarking, ORCHID …), documentation (2001:db8::/32, 3fff::/20)
  // and 6to4 (2002::/16, an IPv4 address relayed) are no visitor's own.
  if ((first & 0xe000) !== 0x2000) return false;
  if (first === 0x2001) return second >= 0x200 && second !== 0xdb8;
  if (first === 0x2002) return false;
  if (first === 0x3fff) return second >= 0x1000;
  return true;
}
