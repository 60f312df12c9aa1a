import { isIP } from 'node:net';
import { clientAddressSampler, visitorAddress } from './client-addresses';

describe("the bench's client addresses", () => {
  it('are valid IPv4 and IPv6 addresses, one in four IPv6, distinct visitors distinct', () => {
    const addresses = Array.from({ length: 20_000 }, (_, n) => visitorAddress(n));
    expect(addresses.every((a) => isIP(a) !== 0)).toBe(true);
    expect(addresses.filter((a) => isIP(a) === 6)).toHaveLength(5_000);
    expect(new Set(addresses).size).toBe(addresses.length);
  });

  it('never repeat when distinct, across runs either', () => {
    const seen = new Set<string>();
    for (const seed of [1, 2]) {
      const next = clientAddressSampler('distinct', seed);
      for (let i = 0; i < 50_000; i++) seen.add(next()!);
    }
    expect(seen.size).toBe(100_000);
  });

  it('repeat as on the web when drawn by popularity: a busiest few, and a long tail', () => {
    const next = clientAddressSampler('zipf', 7);
    const counts = new Map<string, number>();
    for (let i = 0; i < 100_000; i++) {
      const a = next()!;
      counts.set(a, (counts.get(a) ?? 0) + 1);
    }
    const byCount = [...counts.values()].sort((a, b) => b - a);
    // 1/H(1,000,000) ≈ 7 % of clicks from the busiest address; most addresses seen once.
    expect(byCount[0]! / 100_000).toBeGreaterThan(0.05);
    expect(byCount.filter((c) => c === 1).length / counts.size).toBeGreaterThan(0.5);
  });

  it('are absent from loopback', () => {
    expect(clientAddressSampler('loopback', 1)()).toBeUndefined();
  });
});
