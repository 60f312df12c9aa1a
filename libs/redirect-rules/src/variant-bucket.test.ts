import { chooseDestination, compileRouting, type Visit } from './compiled-routing';
import { variantBucket, variantSeed } from './variant-bucket';

const VISITORS = 100_000;

/** A visitor's address: IPv4 from a few busy networks and IPv6 privacy addresses, as a redirector sees them. */
function address(i: number): string {
  if (i % 3 === 0) return `2a02:8108:${(i * 7919) % 65_536}:${i.toString(16)}::${(i * 31) % 9973}`;
  return `${[81, 91, 203, 198][i % 4]}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

describe('variant buckets', () => {
  it.each([[[50, 50]], [[10, 20, 30, 40]], [[1, 99]], [[33, 33, 34]]])(
    'split 100,000 visitors within 1 point of the weights %j, each visitor always to the same variant',
    (weights) => {
      const routing = compileRouting(
        {
          rules: [],
          variants: weights.map((weight, i) => ({ destinationUrl: `https://example.com/${i}`, weight })),
        },
        { linkId: '0b0f6f0e-3f43-4c55-9e5c-6f1b1b0c1d2e', secret: 'the installation secret' },
      )!;
      const counts = weights.map(() => 0);
      const visit = (i: number): Visit => ({
        userAgent: undefined,
        acceptLanguage: undefined,
        query: '',
        address: address(i),
        countryOf: () => 'XX',
      });
      for (let i = 0; i < VISITORS; i++) {
        const choice = chooseDestination(routing, visit(i));
        counts[choice!.index]!++;
        if (i % 1000 === 0) expect(chooseDestination(routing, visit(i))).toBe(choice);
      }
      counts.forEach((count, i) => expect(Math.abs((count / VISITORS) * 100 - weights[i]!)).toBeLessThan(1));
    },
  );

  it('splits two links independently: a visitor of variant 0 of one is not thereby in variant 0 of the other', () => {
    const a = variantSeed('s', '00000000-0000-4000-8000-000000000001');
    const b = variantSeed('s', '00000000-0000-4000-8000-000000000002');
    let both = 0;
    for (let i = 0; i < VISITORS; i++) {
      if (variantBucket(a, address(i)) < 50 && variantBucket(b, address(i)) < 50) both++;
    }
    expect(Math.abs((both / VISITORS) * 100 - 25)).toBeLessThan(1);
  });
});
