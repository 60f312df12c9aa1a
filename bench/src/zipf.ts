/**
 * Link popularity as on the real web: the k-th most followed link is followed in proportion to 1/k^s (Zipf's law).
 * Drawn by rejection-inversion (Hörmann and Derflinger, 1996; Apache Commons RNG's RejectionInversionZipfSampler):
 * constant time and memory a draw whatever the number of links, where a table over 10 million links would take 80 MB
 * and a binary search a draw.
 */
export function zipfSampler(links: number, exponent: number, uniform: () => number): () => number {
  if (!(links >= 1) || !(exponent > 0)) throw new Error(`zipf: need links ≥ 1 and exponent > 0`);
  const s = exponent;
  // (x^(1-s) - 1) / (1-s), continuous through s = 1 (log x there).
  const hIntegral = (x: number): number => {
    const logX = Math.log(x);
    return helper2((1 - s) * logX) * logX;
  };
  const h = (x: number): number => Math.exp(-s * Math.log(x));
  const hIntegralInverse = (x: number): number => {
    let t = x * (1 - s);
    if (t < -1) t = -1; // rounding near the lower end
    return Math.exp(helper1(t) * x);
  };
  const hIntegralX1 = hIntegral(1.5) - 1;
  const hIntegralN = hIntegral(links + 0.5);
  const squeeze = 2 - hIntegralInverse(hIntegral(2.5) - h(2));
  return () => {
    for (;;) {
      const u = hIntegralN + uniform() * (hIntegralX1 - hIntegralN);
      const x = hIntegralInverse(u);
      const k = Math.min(links, Math.max(1, Math.floor(x + 0.5)));
      if (k - x <= squeeze || u >= hIntegral(k + 0.5) - h(k)) return k;
    }
  };
}

/** log1p(x)/x, accurate near 0. */
function helper1(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1 / 3 - 0.25 * x));
}

/** expm1(x)/x, accurate near 0. */
function helper2(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + (x / 3) * (1 + 0.25 * x));
}

/**
 * Which of `links` slugs (`prefix` + 0 … links-1) has popularity rank `rank`
 * (1 = the most followed): a fixed shuffle, so the popular links lie all
 * over the table and its index, as links created over years do, not in one
 * corner of it.
 */
export function slugOfRank(rank: number, links: number, prefix: string): string {
  if (links % SHUFFLE === 0) throw new Error(`zipf: ${links} links cannot be shuffled by ${SHUFFLE}`);
  return `${prefix}${((rank - 1) * SHUFFLE) % links}`;
}

/** A prime: multiplying by it modulo any count of links it does not divide is a permutation. */
const SHUFFLE = 7_368_787;
