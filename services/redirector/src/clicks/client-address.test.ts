import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { canonicalClientAddress } from './client-address';

describe('the client address a visitor is known by', () => {
  it.each([
    ['plain IPv4', '203.0.113.77', '203.0.113.77'],
    ['IPv4 with a port', '203.0.113.77:4711', '203.0.113.77'],
    ['IPv4 mapped into IPv6', '::ffff:203.0.113.77', '203.0.113.77'],
    ['IPv4 mapped, in hex', '::ffff:cb00:714d', '203.0.113.77'],
    ['IPv4 mapped, bracketed with a port', '[::ffff:203.0.113.77]:443', '203.0.113.77'],
    ['IPv6 compressed', '2001:db8::77', '2001:db8::77'],
    ['IPv6 in upper case', '2001:DB8::77', '2001:db8::77'],
    ['IPv6 expanded', '2001:0db8:0000:0000:0000:0000:0000:0077', '2001:db8::77'],
    ['IPv6 bracketed with a port', '[2001:db8::77]:8443', '2001:db8::77'],
    ['IPv6 with a zone', 'fe80::1%eth0', 'fe80::1'],
    ['surrounding spaces', ' 203.0.113.77 ', '203.0.113.77'],
    ['not an address at all', 'unknown', 'unknown'],
    ['IPv4-compatible (RFC 4291), not mapped', '::203.0.113.77', '::cb00:714d'],
    ['IPv6 of hex digits that is not one', 'abc:def', 'abc:def'],
    ['brackets inside, as a forged header could', '1::]/x[', '1::]/x['],
  ])('%s', (_name, raw, canonical) => {
    expect(canonicalClientAddress(raw)).toBe(canonical);
  });
});

describe('an IPv6 address', () => {
  // ipaddr.js is the oracle: its RFC 5952 text, and IPv4 for an IPv4-mapped address. But it
  // reads `::a.b.c.d` as mapped, where RFC 4291 (2.5.5.1) has it IPv4-compatible, another address
  // (`0:0:0:0:0:0:a.b:c.d`, as URL reads it): that one spelling is left to the example above.
  const oracle = (text: string) => ipaddr.process(text).toString();
  const spellings = fc
    .ipV6()
    .filter((address) => !/^::\d+\.\d+\.\d+\.\d+$/.test(address))
    .chain((address) =>
      fc.constantFrom(address, address.toUpperCase(), oracle(address), ipaddr.parse(address).toNormalizedString()),
    );

  it('is written as ipaddr.js writes it, however it was spelled', () => {
    fc.assert(
      fc.property(spellings, (text) => {
        expect(canonicalClientAddress(text)).toBe(oracle(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('mapped from IPv4, in any spelling, is the IPv4 address', () => {
    fc.assert(
      fc.property(
        fc.ipV4(),
        fc.constantFrom('::ffff:', '::FFFF:', '0:0:0:0:0:ffff:'),
        fc.boolean(),
        (v4, prefix, hex) => {
          const parts = v4.split('.').map(Number) as [number, number, number, number];
          const tail = hex
            ? `${((parts[0] << 8) | parts[1]).toString(16)}:${((parts[2] << 8) | parts[3]).toString(16)}`
            : v4;
          expect(canonicalClientAddress(`${prefix}${tail}`)).toBe(v4);
        },
      ),
    );
  });
});
