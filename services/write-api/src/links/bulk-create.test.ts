import { HttpError } from '@shortlink/http';
import { REJECTIONS, SLUG_TAKEN } from '../write-api-errors';
import { assembleBulkResults, bulkItems, validateBulkItem, type Validated } from './bulk-create';
import type { CreateOutcome } from './create-link';
import { serviceAddresses } from './rules/self-link';

const service = serviceAddresses('https://sho.rt');
const link = (slug: string) => ({
  id: `id-${slug}`,
  slug,
  shortUrl: `https://sho.rt/${slug}`,
  destinationUrl: 'https://example.com',
  tag: null,
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
  rules: [],
  variants: null,
  domain: null,
});
const input = { destinationUrl: 'https://example.com', customSlug: null, tag: null };

describe('bulkItems', () => {
  it('given {"links": [...]} of 1 to 100 links, then they are the items', () => {
    expect(bulkItems({ links: [{ url: 'x' }] })).toEqual({ ok: true, items: [{ url: 'x' }] });
    expect(bulkItems({ links: Array.from({ length: 100 }, () => ({})) })).toMatchObject({ ok: true });
  });

  it.each([
    ['no link', { links: [] }, 'invalid_bulk_size'],
    ['101 links', { links: Array.from({ length: 101 }, () => ({})) }, 'invalid_bulk_size'],
    ['no links field', { link: [] }, 'unknown_field'],
    ['links that are not an array', { links: { url: 'x' } }, 'invalid_body'],
    ['an array body', [{ url: 'x' }], 'invalid_body'],
    ['null', null, 'invalid_body'],
    ['U+0000 in a key beside the links', { links: [{ url: 'https://example.com/' }], '\u0000': 'x' }, 'unknown_field'],
    ['a field beside the links', { links: [{ url: 'https://example.com/' }], note: '\ud800' }, 'unknown_field'],
  ])('given %s, then the whole request is a 400', (_name, body, code) => {
    const result = bulkItems(body);
    expect(result).toMatchObject({ ok: false, error: { statusCode: 400, code } });
  });
});

describe('validateBulkItem', () => {
  it('given text no store can hold in an item, then that item alone is an invalid body', () => {
    expect(validateBulkItem({ url: 'https://example.com/\u0000' }, 'pro', service)).toEqual({
      ok: false,
      rejection: { ...REJECTIONS.invalidBody, field: 'url', detail: expect.stringContaining('U+0000') },
    });
    expect(validateBulkItem({ url: 'https://example.com/', tag: '\ud800' }, 'pro', service)).toEqual({
      ok: false,
      rejection: { ...REJECTIONS.invalidBody, field: 'tag', detail: expect.stringContaining('lone surrogate') },
    });
  });

  it('given a custom slug holding U+0000 or a lone surrogate, then it gets the slug’s own text', () => {
    for (const customSlug of ['ab\u0000cd', '\ud800abc']) {
      expect(validateBulkItem({ url: 'https://example.com/', customSlug }, 'pro', service)).toEqual({
        ok: false,
        rejection: { ...REJECTIONS.slugFormat, field: 'customSlug', detail: expect.stringContaining('\\u') },
      });
    }
  });

  it('given a link a single create takes, then it is valid in the same way', () => {
    expect(validateBulkItem({ url: 'https://example.com', customSlug: 'go-go', tag: 'x' }, 'free', service)).toEqual({
      ok: true,
      input: {
        destinationUrl: 'https://example.com',
        domain: null,
        customSlug: 'go-go',
        tag: 'x',
        routing: { rules: [], variants: null },
      },
    });
    expect(validateBulkItem({ url: 'https://example.com', customSlug: 'admin' }, 'pro', service)).toMatchObject({
      ok: false,
      rejection: { code: 'slug_reserved' },
    });
  });
});

describe('assembleBulkResults', () => {
  it('given rejected items among created and failed ones, then each result is in request order', () => {
    const validated: Validated[] = [
      { ok: true, input },
      { ok: false, rejection: REJECTIONS.slugReserved },
      { ok: true, input },
      { ok: true, input },
      { ok: true, input },
    ];
    const outage = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const outcomes: CreateOutcome[] = [
      { ok: true, link: link('first') },
      { ok: false, error: SLUG_TAKEN },
      { ok: false, error: outage },
      { ok: false, error: new TypeError('a bug') },
    ];
    const unexpected: unknown[] = [];
    expect(assembleBulkResults(validated, outcomes, (e) => unexpected.push(e))).toEqual([
      { status: 201, link: link('first') },
      { ...REJECTIONS.slugReserved },
      { status: 409, error: 'This slug is already taken', code: 'slug_taken', ...SLUG_TAKEN.explained },
      {
        status: 503,
        error: 'The service is temporarily unavailable. Try again in a moment.',
        code: 'temporarily_unavailable',
        detail: 'A store this request needs did not answer in time.',
      },
      {
        status: 500,
        error: 'Internal server error',
        code: 'internal',
        detail: 'An unexpected error; the service logged it.',
      },
    ]);
    expect(unexpected).toEqual([outage, new TypeError('a bug')]);
  });

  it('given an HttpError with headers, then the result keeps its status, text, code and detail, not its headers', () => {
    const result = assembleBulkResults(
      [{ ok: true, input }],
      [
        {
          ok: false,
          error: new HttpError(503, 'later', 'temporarily_unavailable', { detail: 'Later.' }, { 'Retry-After': '60' }),
        },
      ],
      () => undefined,
    );
    expect(result).toEqual([{ status: 503, error: 'later', code: 'temporarily_unavailable', detail: 'Later.' }]);
  });
});
