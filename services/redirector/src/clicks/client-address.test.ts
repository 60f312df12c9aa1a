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
  ])('%s', (_name, raw, canonical) => {
    expect(canonicalClientAddress(raw)).toBe(canonical);
  });
});
