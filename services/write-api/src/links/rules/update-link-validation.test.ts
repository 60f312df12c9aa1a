import { LIMITS, REJECTIONS, type Rejection } from '../../write-api-errors';
import { serviceAddresses } from './self-link';
import { validateUpdateLink } from './update-link-validation';

const origin = serviceAddresses('https://sho.rt', {});
const rejection = (body: unknown) => {
  const result = validateUpdateLink(body, origin);
  if (result.ok) throw new Error(`expected a rejection for ${JSON.stringify(body)}`);
  // What the spec fixes; detail and field are checked by write-api-errors.test.ts.
  const { detail: _detail, field: _field, ...text } = result.rejection;
  return text;
};
/** A rejection as the spec fixes it: its status, text and code. */
const spec = ({ detail: _detail, field: _field, ...text }: Rejection) => text;

describe('validateUpdateLink', () => {
  it('accepts a new URL, a new tag, or both, as submitted', () => {
    expect(validateUpdateLink({ url: 'https://example.com/New?q=1' }, origin)).toEqual({
      ok: true,
      changes: { destinationUrl: 'https://example.com/New?q=1' },
    });
    expect(validateUpdateLink({ tag: 'spring' }, origin)).toEqual({ ok: true, changes: { tag: 'spring' } });
    expect(validateUpdateLink({ url: 'http://e.example', tag: 'x' }, origin)).toEqual({
      ok: true,
      changes: { destinationUrl: 'http://e.example', tag: 'x' },
    });
  });

  it('reads tag: null as "remove the tag"', () => {
    expect(validateUpdateLink({ tag: null }, origin)).toEqual({ ok: true, changes: { tag: null } });
  });

  it.each([
    ['a body that is no object', 'nope', REJECTIONS.invalidBody],
    ['an array', [{ url: 'https://e.example' }], REJECTIONS.invalidBody],
    ['null', null, REJECTIONS.invalidBody],
    ['an empty object', {}, REJECTIONS.emptyChange],
    ['a slug', { customSlug: 'other' }, REJECTIONS.unknownField],
    ['a misspelt field beside a good one', { url: 'https://e.example', tags: 'x' }, REJECTIONS.unknownField],
    ['a __proto__ key', JSON.parse('{"__proto__": {"url": "https://e.example"}}'), REJECTIONS.unknownField],
    ['url: null (a link always has a destination)', { url: null }, REJECTIONS.invalidBody],
    ['a URL that is not one', { url: 'not a url' }, REJECTIONS.invalidBody],
    ['a ftp URL', { url: 'ftp://e.example/x' }, REJECTIONS.invalidBody],
    ['a URL with surrounding space', { url: ' https://e.example' }, REJECTIONS.invalidBody],
    ['an over-long URL', { url: `https://e.example/${'a'.repeat(LIMITS.urlMaxLength)}` }, REJECTIONS.urlTooLong],
    ['a URL with credentials', { url: 'https://user:pw@e.example' }, REJECTIONS.urlCredentials],
    ['a URL to this service', { url: 'https://sho.rt/abc12' }, REJECTIONS.urlSelf],
    ['an empty tag', { tag: '' }, REJECTIONS.tag],
    ['a tag that is no string', { tag: 5 }, REJECTIONS.tag],
    ['an over-long tag', { tag: 'x'.repeat(LIMITS.tagMaxLength + 1) }, REJECTIONS.tag],
    ['a tag with a control character', { tag: 'a\u0007b' }, REJECTIONS.tag],
    ['a good URL with a bad tag', { url: 'https://e.example', tag: '' }, REJECTIONS.tag],
  ])('refuses %s with creation’s rule and text', (_name, body, expected) => {
    expect(rejection(body)).toEqual(spec(expected));
  });
});
