import { LIMITS, REJECTIONS, type Rejection } from '../../write-api-errors';
import { validateCreateLink } from './create-link-validation';
import { serviceAddresses } from './self-link';

const origin = serviceAddresses(
  'https://sho.rt',
  {
    eth0: [
      {
        address: '10.1.2.3',
        netmask: '255.0.0.0',
        family: 'IPv4',
        mac: '00:00:00:00:00:00',
        internal: false,
        cidr: null,
      },
    ],
  },
  'build-7.ci.example.',
);
const ok = (body: unknown, plan: 'free' | 'pro' = 'pro') => validateCreateLink(body, plan, origin);
const rejection = (body: unknown, plan: 'free' | 'pro' = 'pro') => {
  const result = ok(body, plan);
  if (result.ok) throw new Error(`expected a rejection for ${JSON.stringify(body)}`);
  // What the spec fixes; detail and field are checked by write-api-errors.test.ts.
  const { detail: _detail, field: _field, ...text } = result.rejection;
  return text;
};

/** A rejection as the spec fixes it: its status, text and code. */
const spec = ({ detail: _detail, field: _field, ...text }: Rejection) => text;

describe('validateCreateLink', () => {
  it('accepts a URL alone, keeping it exactly as submitted and the tag absent as null', () => {
    expect(ok({ url: 'https://example.com/Path?q=Ä#frag' })).toEqual({
      ok: true,
      input: {
        destinationUrl: 'https://example.com/Path?q=Ä#frag',
        domain: null,
        customSlug: null,
        tag: null,
        routing: { rules: [], variants: null },
      },
    });
  });

  it('accepts a custom slug and a tag', () => {
    expect(ok({ url: 'http://example.com', customSlug: 'spring-26', tag: 'newsletter' })).toEqual({
      ok: true,
      input: {
        destinationUrl: 'http://example.com',
        domain: null,
        customSlug: 'spring-26',
        tag: 'newsletter',
        routing: { rules: [], variants: null },
      },
    });
  });

  it.each([
    ['a missing url', {}],
    ['a null url', { url: null }],
    ['a numeric url', { url: 42 }],
    ['text that is not a URL', { url: 'not a url' }],
    ['a URL without scheme', { url: 'example.com/path' }],
    ['an ftp URL', { url: 'ftp://example.com/file' }],
    ['a javascript URL', { url: 'javascript:alert(1)' }],
    ['a scheme without a host', { url: 'https://' }],
    ['a mailto URL', { url: 'mailto:someone@example.com' }],
    ['an array body', [{ url: 'https://example.com' }]],
    ['a string body', 'https://example.com'],
    ['a null body', null],
  ])('refuses %s as an invalid body', (_name, body) => {
    expect(rejection(body)).toEqual(spec(REJECTIONS.invalidBody));
  });

  it.each([
    ['too short', 'ab'],
    ['too long', 'a'.repeat(31)],
    ['uppercase', 'Launch'],
    ['an underscore', 'a_b_c'],
    ['a dot', 'a.b.c'],
    ['a space', 'a b c'],
    ['empty', ''],
    ['a number', 12345],
  ])('refuses a custom slug that is %s', (_name, customSlug) => {
    const r = rejection({ url: 'https://example.com', customSlug });
    expect(r.status).toBe(400);
    expect(r.error.startsWith('Custom slugs must be 3-30 characters')).toBe(true);
  });

  it.each(['api', 'admin', 'docs', 'healthz', 'metrics', 'login', 'static', 'dashboard'])(
    'refuses the reserved slug %s',
    (customSlug) => {
      expect(rejection({ url: 'https://example.com', customSlug })).toEqual({
        status: 400,
        error: 'This slug is reserved',
        code: 'slug_reserved',
      });
    },
  );

  it('lets pro accounts use 3-character slugs and refuses them on the free plan with a 403', () => {
    expect(ok({ url: 'https://example.com', customSlug: 'abc' }, 'pro').ok).toBe(true);
    const r = rejection({ url: 'https://example.com', customSlug: 'abc' }, 'free');
    expect(r.status).toBe(403);
    expect(r.error).toMatch(/Pro plan/);
    expect(ok({ url: 'https://example.com', customSlug: 'abcd' }, 'free').ok).toBe(true);
  });

  it('checks the URL before the slug, and the slug format before the reserved list', () => {
    expect(rejection({ customSlug: 'api' })).toEqual(spec(REJECTIONS.invalidBody));
    expect(rejection({ url: 'https://example.com', customSlug: 'API' }).code).toBe('invalid_slug');
  });

  it('treats a null custom slug or tag as absent', () => {
    expect(ok({ url: 'https://example.com', customSlug: null, tag: null })).toMatchObject({
      input: { customSlug: null, tag: null },
    });
  });

  it('refuses URLs with credentials, URLs back to the service, and URLs over the limit', () => {
    expect(rejection({ url: 'https://paypal.com@evil.example/' })).toEqual(spec(REJECTIONS.urlCredentials));
    expect(rejection({ url: 'https://user:pw@example.com/' })).toEqual(spec(REJECTIONS.urlCredentials));
    expect(rejection({ url: 'https://sho.rt/abc12' })).toEqual(spec(REJECTIONS.urlSelf));
    expect(rejection({ url: `https://example.com/${'a'.repeat(LIMITS.urlMaxLength)}` })).toEqual(
      spec(REJECTIONS.urlTooLong),
    );
    expect(ok({ url: `https://example.com/${'a'.repeat(LIMITS.urlMaxLength - 30)}` }).ok).toBe(true);
  });

  it.each([
    ['a raw TAB', 'https://example.com/a\tb'],
    ['a raw line feed', 'https://example.com/a\nb'],
    ['a DEL', 'https://example.com/a\u007fb'],
    ['a C1 control', 'https://example.com/a\u0085b'],
    ['a leading space', ' https://example.com/'],
    ['a trailing space', 'https://example.com/ '],
    ['a trailing no-break space', 'https://example.com/\u00a0'],
  ])('refuses a URL with %s as an invalid body', (_name, url) => {
    expect(rejection({ url })).toEqual(spec(REJECTIONS.invalidBody));
  });

  it.each([
    ['the public host, other scheme', 'http://sho.rt/abc12'],
    ['the public host in upper case, with a trailing dot', 'https://SHO.RT./abc12'],
    ['the public host with its default port spelt out', 'https://sho.rt:443/abc12'],
    ['localhost on the public port', 'https://localhost/abc12'],
    ['a name under .localhost', 'https://app.localhost:443/abc12'],
    ['127.0.0.1', 'https://127.0.0.1/abc12'],
    ['another loopback address', 'https://127.8.9.10/abc12'],
    ['loopback in decimal', 'https://2130706433/abc12'],
    ['loopback in hex', 'https://0x7f.1/abc12'],
    ['IPv6 loopback', 'https://[::1]/abc12'],
    ['IPv6 loopback, expanded', 'https://[0:0:0:0:0:0:0:1]/abc12'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/abc12'],
    ['the unspecified address', 'https://0.0.0.0/abc12'],
    ['the IPv6 unspecified address', 'https://[::]/abc12'],
    ["one of the machine's own interface addresses", 'https://10.1.2.3/abc12'],
    ["the machine's host name", 'https://build-7.ci.example/abc12'],
    ["the machine's host name in upper case, with a trailing dot", 'https://BUILD-7.CI.EXAMPLE./abc12'],
    ["the first label of the machine's host name", 'https://build-7/abc12'],
  ])('refuses a URL back to this service: %s', (_name, url) => {
    expect(rejection({ url })).toEqual(spec(REJECTIONS.urlSelf));
  });

  it('accepts a machine name on another port, and hosts that merely contain the public name', () => {
    expect(ok({ url: 'http://localhost:8080/dev' }).ok).toBe(true);
    expect(ok({ url: 'http://build-7:8080/dev' }).ok).toBe(true);
    expect(ok({ url: 'https://build-7.example.org/' }).ok).toBe(true);
    expect(ok({ url: 'https://sho.rt.example.com/' }).ok).toBe(true);
    expect(ok({ url: 'https://notsho.rt/' }).ok).toBe(true);
  });

  it('keeps a URL as submitted, backslashes and all (the redirect sends its WHATWG form)', () => {
    expect(ok({ url: 'https://example.com\\@evil.example/' })).toMatchObject({
      ok: true,
      input: { destinationUrl: 'https://example.com\\@evil.example/' },
    });
  });

  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(LIMITS.tagMaxLength + 1)],
    ['too long in characters', '😀'.repeat(LIMITS.tagMaxLength + 1)],
    ['a control character', 'a\nb'],
    ['not a string', 7],
  ])('refuses a tag that is %s', (_name, tag) => {
    expect(rejection({ url: 'https://example.com', tag })).toEqual(spec(REJECTIONS.tag));
  });

  it('accepts any printable tag up to the limit, unicode included', () => {
    expect(ok({ url: 'https://example.com', tag: 'Été 2026 — email #3' }).ok).toBe(true);
    expect(ok({ url: 'https://example.com', tag: 'x'.repeat(LIMITS.tagMaxLength) }).ok).toBe(true);
    // Characters, as the list's tag filter counts them: an emoji is one (two UTF-16 units)
    expect(ok({ url: 'https://example.com', tag: '😀'.repeat(LIMITS.tagMaxLength) }).ok).toBe(true);
  });
});
