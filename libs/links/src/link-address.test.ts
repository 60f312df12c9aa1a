import { HttpError } from '@shortlink/http';
import { linkDomainOf, linkKeyOf } from './link-address';

const OWN = 'sho.rt';

describe('how a request names a link', () => {
  it('is the slug alone without a domain, or with the installation’s own host in any spelling', () => {
    for (const query of [{}, undefined, { domain: 'sho.rt' }, { domain: 'SHO.RT.' }]) {
      expect(linkKeyOf('sale', query, OWN)).toBe('sale');
    }
  });

  it('is hostname/slug on a branded domain, the hostname in stored form', () => {
    expect(linkKeyOf('sale', { domain: 'Go.Example.COM.' }, OWN)).toBe('go.example.com/sale');
    expect(linkKeyOf('sale', { domain: 'bücher.example' }, OWN)).toBe('xn--bcher-kva.example/sale');
  });

  it('refuses a domain that is no hostname with invalid_domain, naming the field', () => {
    for (const domain of ['a..b', 'http://go.example.com/', '127.0.0.1', ['a.example', 'b.example'], '', 'localhost']) {
      let thrown: unknown;
      try {
        linkKeyOf('sale', { domain }, OWN);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(HttpError);
      expect(thrown).toMatchObject({ statusCode: 400, code: 'invalid_domain', explained: { field: 'domain' } });
    }
  });

  it('says why in one short sentence, however hostile the domain: no detail past 400 characters', () => {
    // Found by the generated hostile-input test: the domain's excerpt, then the hostname's own, each of escapes.
    const label = '\u0001'.repeat(63);
    for (const domain of [`${label}.${label}`, `x_${'\u0085'.repeat(60)}.example`, '\ud800'.repeat(500)]) {
      const result = linkDomainOf(domain, OWN);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.explained.detail.length).toBeLessThanOrEqual(400);
    }
  });

  it('names no link with a path segment that is no slug: 404, before the domain is read', () => {
    expect(() => linkKeyOf('NOT A SLUG', { domain: 'a..b' }, OWN)).toThrow(
      expect.objectContaining({ statusCode: 404 }),
    );
  });

  it('reads a create’s domain the same way: null for none or ours', () => {
    expect(linkDomainOf(undefined, OWN)).toEqual({ ok: true, domain: null });
    expect(linkDomainOf(null, OWN)).toEqual({ ok: true, domain: null });
    expect(linkDomainOf('sho.rt', OWN)).toEqual({ ok: true, domain: null });
    expect(linkDomainOf('GO.example.com', OWN)).toEqual({ ok: true, domain: 'go.example.com' });
    expect(linkDomainOf(42, OWN)).toMatchObject({ ok: false, error: { code: 'invalid_domain' } });
  });
});
