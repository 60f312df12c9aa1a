import fc from 'fast-check';
import { addressFacts } from './address-facts';
import { canonicalClientAddress } from './client-address';
import { visitorHash } from './visitor-hash';

const secret = 'a-secret-of-some-length-0123';
const countryTable: Record<string, string> = { '203.0.113.77': 'GB', '2001:db8::77': 'DE' };

/** A country lookup that counts what it is asked. */
function countingCountries() {
  const asked: string[] = [];
  return { asked, countryOf: (ip: string) => (asked.push(ip), countryTable[ip] ?? 'XX') };
}

describe("a client address's facts", () => {
  it('are the keyed hash and the country of its canonical form, however often and in whatever order asked', () => {
    const address = fc.oneof(
      fc.constantFrom('203.0.113.77', '::ffff:203.0.113.77', '203.0.113.77:4711', '[2001:db8::77]:443', '2001:DB8::77'),
      // Near neighbours: one typo of a key and two visitors would share a hash.
      fc.integer({ min: 0, max: 255 }).map((n) => `192.0.2.${n}`),
      fc.integer({ min: 0, max: 255 }).map((n) => `2001:db8::${n.toString(16)}`),
      fc.ipV4(),
      fc.ipV6(),
      fc.string({ maxLength: 80 }),
    );
    fc.assert(
      fc.property(fc.array(address, { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (ips, remember) => {
        const { countryOf } = countingCountries();
        const factsOf = addressFacts({ visitorSecret: secret, countryOf, remember });
        for (const ip of ips) {
          const canonical = canonicalClientAddress(ip);
          expect(factsOf(ip)).toEqual({
            visitorHash: visitorHash(secret, canonical),
            country: countryTable[canonical] ?? 'XX',
          });
        }
      }),
    );
  });

  it('are worked out once for an address seen again while remembered', () => {
    const { asked, countryOf } = countingCountries();
    const factsOf = addressFacts({ visitorSecret: secret, countryOf });
    for (let i = 0; i < 300; i++) factsOf(['203.0.113.77', '198.51.100.1', '2001:db8::77'][i % 3]!);
    expect(asked).toEqual(['203.0.113.77', '198.51.100.1', '2001:db8::77']);
  });

  it('are forgotten when the address has not been seen for a while, kept while it is seen', () => {
    const { asked, countryOf } = countingCountries();
    const factsOf = addressFacts({ visitorSecret: secret, countryOf, remember: 2 });
    const seen = ['192.0.2.1', '192.0.2.2', '192.0.2.1', '192.0.2.3', '192.0.2.1', '192.0.2.4', '192.0.2.1'];
    for (const ip of [...seen, '192.0.2.2']) factsOf(ip);
    // .1 came back every other address and was never worked out again; .2, not seen since, was.
    expect(asked).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.2']);
  });

  it('of a forged header longer than any address are worked out each time, never kept', () => {
    const { asked, countryOf } = countingCountries();
    const factsOf = addressFacts({ visitorSecret: secret, countryOf });
    const forged = `${'x'.repeat(4000)}, 203.0.113.77`;
    factsOf(forged);
    factsOf(forged);
    expect(asked).toHaveLength(2);
  });
});
