import { linkKey, linkOfKey } from './link-key';

describe('a link key', () => {
  it('is the slug alone on the installation’s own domain, as every key before domains', () => {
    expect(linkKey(null, 'abc')).toBe('abc');
    expect(linkKey(undefined, 'abc')).toBe('abc');
    expect(linkOfKey('abc')).toEqual({ domain: null, slug: 'abc' });
  });

  it('is hostname/slug on a branded domain, and reads back into both', () => {
    expect(linkKey('go.acme.com', 'abc')).toBe('go.acme.com/abc');
    expect(linkOfKey('go.acme.com/abc')).toEqual({ domain: 'go.acme.com', slug: 'abc' });
  });

  it('keeps one slug on two domains two keys', () => {
    const keys = new Set([linkKey(null, 'sale'), linkKey('go.a.com', 'sale'), linkKey('go.b.com', 'sale')]);
    expect(keys.size).toBe(3);
  });
});
