import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { canonicalClientAddress } from './client-address';
import { isPublicAddress } from './public-address';

describe('public client addresses', () => {
  it.each([
    ['8.8.8.8', true],
    ['81.2.69.142', true],
    ['203.0.112.255', true],
    ['203.0.113.9', false],
    ['198.51.100.7', false],
    ['192.0.2.1', false],
    ['10.1.1.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['100.64.0.1', false],
    ['198.19.255.255', false],
    ['127.0.0.1', false],
    ['169.254.1.1', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['2a00:1450:4001:80b::200e', true],
    ['2001:4860:4860::8888', true],
    ['2001:db8::1', false],
    ['2001::1', false],
    ['2001:2::1', false],
    ['2002:c000:204::1', false],
    ['3fff::1', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['::1', false],
    ['ff02::1', false],
    ['not an address', false],
  ])('%s: %s', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });

  it('draws the lines ipaddr.js draws, for every address written as the click path writes it', () => {
    const ipv4Public = new Set(['unicast', 'as112', 'amt']);
    const v6 = (cidr: string) => ipaddr.parseCIDR(cidr) as [ipaddr.IPv6, number];
    const notOwn = ['2001::/23', '2001:db8::/32', '2002::/16', '3fff::/20'].map(v6);
    const globalUnicast = v6('2000::/3');
    const expected = (ip: string): boolean => {
      const address = ipaddr.process(ip);
      if (address.kind() === 'ipv4') return ipv4Public.has(address.range());
      const six = address as ipaddr.IPv6;
      return six.match(globalUnicast) && !notOwn.some((range) => six.match(range));
    };
    // Addresses near every edge drawn, and anywhere
    const edges = ['203.0.113.0', '198.18.0.0', '100.64.0.0', '172.16.0.0', '2001:200::', '2001:db8::', '3fff:1000::'];
    const near = fc.tuple(fc.constantFrom(...edges), fc.integer({ min: -2, max: 2 })).map(([edge, step]) => {
      const bytes = ipaddr.parse(edge).toByteArray();
      let carry = step;
      for (let i = bytes.length - 1; i >= 0 && carry !== 0; i--) {
        const value = bytes[i]! + carry;
        bytes[i] = ((value % 256) + 256) % 256;
        carry = Math.floor(value / 256);
      }
      return ipaddr.fromByteArray(bytes).toString();
    });
    const ipv6 = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
      .map((groups) => groups.map((g) => g.toString(16)).join(':'));
    const prefixed = fc
      .tuple(fc.constantFrom(0x2001, 0x2002, 0x3fff, 0x2a00, 0xfe80, 0x0, 0x4000), fc.integer({ min: 0, max: 0xffff }))
      .map(([a, b]) => `${a.toString(16)}:${b.toString(16)}::1`);
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), near, ipv6, prefixed), (raw) => {
        const ip = canonicalClientAddress(raw);
        expect(isPublicAddress(ip)).toBe(expected(ip));
      }),
      { numRuns: 20_000 },
    );
  });
});
