import { visitorHash } from './visitor-hash';

describe('visitorHash', () => {
  it('is a keyed hash: stable for one key, different under another, never the IP', () => {
    const a = visitorHash('secret-one-0123456789', '203.0.113.9');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(visitorHash('secret-one-0123456789', '203.0.113.9')).toBe(a);
    expect(visitorHash('secret-two-0123456789', '203.0.113.9')).not.toBe(a);
    expect(a).not.toContain('203');
  });
});
