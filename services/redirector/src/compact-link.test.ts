import { randomUUID } from 'node:crypto';
import { isLinkOf, packLink, slugOfPacked, unpackLink } from './compact-link';
import type { ResolvedLink } from './resolved-link';

const link = (linkId: string, accountId: string, location = 'https://shop.example.com/a?b=c'): ResolvedLink => ({
  slug: 'abc12',
  linkId,
  accountId,
  location,
});

describe('packLink', () => {
  it('keeps a link in one string (its slug, its ids in 16 bytes each, the Location without https://) and gives it back as it was', () => {
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
      expect((packed as string).length).toBe(1 + 'abc12'.length + 32 + original.location.length - 'https://'.length);
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

  it('keeps a Location of any other scheme whole', () => {
    for (const location of ['http://example.com/', 'https:/x', 'ftp://https://x', 'httpS://x', '']) {
      const original = link(randomUUID(), randomUUID(), location);
      expect(typeof packLink(original)).toBe('string');
      expect(unpackLink('abc12', packLink(original))).toEqual(original);
    }
  });

  it('knows its slug, and no other', () => {
    const packed = packLink(link(randomUUID(), randomUUID()));
    expect(isLinkOf(packed, 'abc12')).toBe(true);
    expect(slugOfPacked(packed)).toBe('abc12');
    for (const other of ['abc1', 'abc123', 'abc13', '', 'ABC12']) expect(isLinkOf(packed, other)).toBe(false);
    const object = link('not-a-uuid', randomUUID());
    expect(isLinkOf(packLink(object), 'abc12')).toBe(true);
    expect(isLinkOf(packLink(object), 'abc1')).toBe(false);
  });

  it('keeps the object when the slug is too long or not printable ASCII for its length byte', () => {
    for (const slug of ['s'.repeat(64), 'slüg']) {
      const odd = { ...link(randomUUID(), randomUUID()), slug };
      expect(packLink(odd)).toBe(odd);
    }
    const longest = { ...link(randomUUID(), randomUUID()), slug: 's'.repeat(63) };
    expect(unpackLink(longest.slug, packLink(longest))).toEqual(longest);
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
