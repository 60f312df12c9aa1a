import { seededRandom } from './seeded-random';
import { slugOfRank, zipfSampler } from './zipf';

describe('zipfSampler', () => {
  it('draws rank k in proportion to 1/k^s', () => {
    const links = 50;
    const s = 1.1;
    const draw = zipfSampler(links, s, seededRandom(7));
    const counts = new Array<number>(links + 1).fill(0);
    const draws = 400_000;
    for (let i = 0; i < draws; i++) counts[draw()]!++;
    const norm = Array.from({ length: links }, (_, i) => (i + 1) ** -s).reduce((a, b) => a + b, 0);
    expect(counts[0]).toBe(0);
    for (let k = 1; k <= links; k++) {
      const expected = (draws * k ** -s) / norm;
      // Five standard deviations of a binomial count: fails only when the law is wrong.
      expect(Math.abs(counts[k]! - expected)).toBeLessThan(5 * Math.sqrt(expected) + 1);
    }
  });

  it('stays within 1 … links over millions of links, and repeats itself for one seed', () => {
    const a = zipfSampler(10_000_000, 1.1, seededRandom(1));
    const b = zipfSampler(10_000_000, 1.1, seededRandom(1));
    const drawn = Array.from({ length: 100_000 }, () => a());
    expect(Math.min(...drawn)).toBe(1);
    expect(Math.max(...drawn)).toBeLessThanOrEqual(10_000_000);
    expect(Math.max(...drawn)).toBeGreaterThan(1_000_000);
    expect(Array.from({ length: 100_000 }, () => b())).toEqual(drawn);
  });
});

describe('slugOfRank', () => {
  it('gives every rank its own slug among the loaded ones', () => {
    const links = 10_000;
    const slugs = new Set(Array.from({ length: links }, (_, i) => slugOfRank(i + 1, links, 'z-')));
    expect(slugs.size).toBe(links);
    for (const slug of slugs) expect(Number(slug.slice(2))).toBeLessThan(links);
  });
});
