import { randomUUID } from 'node:crypto';
import { packLink, unpackLink } from './compact-link';
import type { ResolvedLink } from './link-cache';

const link = (linkId: string, accountId: string, location = 'https://shop.example.com/a?b=c'): ResolvedLink => ({
  slug: 'abc12',
  linkId,
  accountId,
  location,
});

describe('packLink', () => {
  it('keeps a link in one string, its ids in 16 bytes each, and gives it back as it was', () => {
    const ids = [
      ...Array.from({ length: 200 }, () => randomUUID()),
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
    ];
    for (const [i, linkId] of ids.entries()) {
      const original = link(linkId, ids[(i + 1) % ids.length]!);
      const packed = packLink(original);
      expect(typeof packed).toBe('string');
      expect((packed as string).length).toBe(32 + original.location.length);
      expect(unpackLink('abc12', packed)).toEqual(original);
    }
  });

  it('keeps the object when an id would not come back the same (not a lowercase UUID)', () => {
    const uuid = randomUUID();
    for (const odd of [link('l1', uuid), link(uuid, 'a1'), link(uuid.toUpperCase(), uuid), link(`{${uuid}}`, uuid)]) {
      expect(packLink(odd)).toBe(odd);
      expect(unpackLink('abc12', packLink(odd))).toBe(odd);
    }
  });

  it('keeps the object when the Location is not printable ASCII', () => {
    const odd = link(randomUUID(), randomUUID(), 'https://exämple.com/');
    expect(packLink(odd)).toBe(odd);
  });

  it('unpacks two links one after the other without mixing their ids', () => {
    const a = link(randomUUID(), randomUUID());
    const b = link(randomUUID(), randomUUID(), 'http://other.example/');
    const [pa, pb] = [packLink(a), packLink(b)];
    const ua = unpackLink('abc12', pa);
    const ub = unpackLink('abc12', pb);
    expect(ua).toEqual(a);
    expect(ub).toEqual(b);
  });
});
