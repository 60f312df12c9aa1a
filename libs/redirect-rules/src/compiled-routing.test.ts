import { chooseDestination, compileRouting, type Visit } from './compiled-routing';
import type { LinkRouting } from '@shortlink/events';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

const OPTIONS = { linkId: '0b0f6f0e-3f43-4c55-9e5c-6f1b1b0c1d2e', secret: 'test-secret' };

function visit(facts: Partial<Omit<Visit, 'countryOf'>> & { country?: string } = {}) {
  const looked = { country: 0 };
  const v: Visit = {
    userAgent: 'userAgent' in facts ? facts.userAgent : WINDOWS,
    acceptLanguage: 'acceptLanguage' in facts ? facts.acceptLanguage : 'en-US,en;q=0.9',
    query: facts.query ?? '',
    address: facts.address ?? '203.0.113.7',
    countryOf: () => {
      looked.country++;
      return facts.country ?? 'US';
    },
  };
  return { v, looked };
}

const routing = (rules: LinkRouting['rules'], variants: LinkRouting['variants'] = null): LinkRouting => ({
  rules,
  variants,
});

describe('compileRouting', () => {
  it('given a link without rules or variants, when compiled, then there is nothing to cache beside it', () => {
    expect(compileRouting(routing([]), OPTIONS)).toBeNull();
  });
});

describe('chooseDestination', () => {
  const fiveRules = routing([
    { when: { device: ['mobile'], country: ['DE'] }, destinationUrl: 'https://example.com/de-mobile' },
    { when: { os: ['ios'] }, destinationUrl: 'https://example.com/ios' },
    { when: { language: ['de', 'fr'] }, destinationUrl: 'https://example.com/de-fr' },
    { when: { query: { name: 'utm_source', values: ['partner'] } }, destinationUrl: 'https://example.com/partner' },
    { when: { country: ['JP', 'KR'] }, destinationUrl: 'https://example.com/asia' },
  ]);
  const compiled = compileRouting(fiveRules, { ...OPTIONS, location: (url) => `${url}?via=rule` })!;

  it.each([
    ['an iPhone in Germany', { userAgent: IPHONE, country: 'DE' }, 0],
    ['an iPhone elsewhere', { userAgent: IPHONE, country: 'FR' }, 1],
    ['a French desktop', { acceptLanguage: 'fr-FR,fr;q=0.9,en;q=0.5' }, 2],
    ['a partner’s visitor', { query: 'a=1&utm_source=partner' }, 3],
    ['a desktop in Japan', { country: 'JP' }, 4],
    ['a French iPhone from a partner', { userAgent: IPHONE, acceptLanguage: 'fr', query: 'utm_source=partner' }, 1],
  ])('given %s, when a destination is chosen, then the first rule that holds picks it', (_, facts, index) => {
    const choice = chooseDestination(compiled, visit(facts).v);
    expect(choice).toMatchObject({ matched: 'rule', index });
    expect(choice?.location).toBe(`${fiveRules.rules[index]!.destinationUrl}?via=rule`);
  });

  it('given a visit no rule holds for and no variants, when chosen, then the link’s own destination (null) stays', () => {
    expect(chooseDestination(compiled, visit({ country: 'US' }).v)).toBeNull();
  });

  it('given a rule before any country rule holds, when chosen, then the country is never looked up', () => {
    const { v, looked } = visit({ acceptLanguage: 'fr' });
    chooseDestination(compiled, v);
    expect(looked.country).toBe(0);
  });

  it('given two country rules, when neither holds, then the country is looked up once', () => {
    const { v, looked } = visit({ country: 'US' });
    chooseDestination(compiled, v);
    expect(looked.country).toBe(1);
  });

  it('given a rule of two conditions, when only one holds, then the rule does not match', () => {
    expect(chooseDestination(compiled, visit({ userAgent: WINDOWS, country: 'DE' }).v)).toBeNull();
  });

  it.each([
    ['no headers at all', { userAgent: undefined, acceptLanguage: undefined, query: '', address: '' }],
    ['broken escapes', { query: '%%%&utm_source=%E0%A4%A&=&&', acceptLanguage: ';;,q=,,;q=9' }],
    ['16 KiB of header', { userAgent: '('.repeat(16_384), acceptLanguage: 'x;q=0.'.repeat(2730) }],
  ])('given a visit with %s, when chosen, then it is answered, not thrown', (_, facts) => {
    expect(() => chooseDestination(compiled, visit(facts).v)).not.toThrow();
  });

  it('given a choice, when made twice, then it is the same object: choosing allocates nothing', () => {
    const { v } = visit({ userAgent: IPHONE });
    expect(chooseDestination(compiled, v)).toBe(chooseDestination(compiled, v));
  });
});

describe('sticky variants', () => {
  const weights = [50, 30, 15, 5];
  const split = routing(
    [{ when: { query: { name: 'v', values: ['b'] } }, destinationUrl: 'https://example.com/forced-b' }],
    weights.map((weight, i) => ({ destinationUrl: `https://example.com/${i}`, weight })),
  );
  const compiled = compileRouting(split, OPTIONS)!;
  const addresses = Array.from({ length: 100_000 }, (_, i) =>
    i % 4 === 3
      ? `2001:db8:${(i * 7919) % 65536}:${i % 65536}::${(i * 31) % 65536}`
      : `${((i * 16777619) % 223) + 1}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  );

  it('given 100,000 distinct visitors, when each is sent, then each variant gets its weight within 1 point', () => {
    const counts = [0, 0, 0, 0];
    for (const address of addresses) counts[chooseDestination(compiled, visit({ address }).v)!.index]!++;
    counts.forEach((count, i) => expect(Math.abs((count / addresses.length) * 100 - weights[i]!)).toBeLessThan(1));
  });

  it('given the same visitor, when sent again (even by another compile of the link), then the variant is the same', () => {
    const again = compileRouting(split, OPTIONS)!;
    for (const address of addresses.slice(0, 1000)) {
      expect(chooseDestination(again, visit({ address }).v)).toEqual(chooseDestination(compiled, visit({ address }).v));
    }
  });

  it('given two links with the same variants, when a visitor is sent, then the links split visitors independently', () => {
    const other = compileRouting(split, { ...OPTIONS, linkId: '1b0f6f0e-3f43-4c55-9e5c-6f1b1b0c1d2e' })!;
    const same = addresses
      .slice(0, 10_000)
      .filter(
        (address) =>
          chooseDestination(other, visit({ address }).v)!.index ===
          chooseDestination(compiled, visit({ address }).v)!.index,
      );
    // Independent splits agree with probability Σw² = 0.365.
    expect(same.length / 10_000).toBeGreaterThan(0.33);
    expect(same.length / 10_000).toBeLessThan(0.4);
  });

  it('given a rule that holds, when chosen, then the rule wins over the variants', () => {
    expect(chooseDestination(compiled, visit({ query: 'v=b' }).v)).toMatchObject({ matched: 'rule', index: 0 });
  });
});
