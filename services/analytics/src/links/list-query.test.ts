import { INVALID_CURSOR, INVALID_LIMIT, INVALID_SEARCH, INVALID_TAG_FILTER, LIST_LIMITS } from '../analytics-errors';
import { encodeCursor } from './list-cursor';
import { parseListRequest } from './list-query';

const LINK_ID = '0b6f7c1e-2d3a-4b5c-8d9e-0f1a2b3c4d5e';

describe('the list query string', () => {
  it('defaults to the first page of 20', () => {
    expect(parseListRequest({})).toEqual({ ok: true, request: { limit: LIST_LIMITS.defaultLimit } });
  });

  it('takes limit, cursor, tag and search, and ignores parameters it does not know', () => {
    expect(
      parseListRequest({ limit: '100', cursor: encodeCursor(LINK_ID), tag: 'été 🚀', search: '100%_', page: 'x' }),
    ).toEqual({ ok: true, request: { limit: 100, after: LINK_ID, tag: 'été 🚀', search: '100%_' } });
    expect(parseListRequest({ limit: '1' })).toEqual({ ok: true, request: { limit: 1 } });
  });

  it.each([['0'], ['101'], ['-1'], ['1.5'], ['01'], [''], [' 5'], ['1e2'], ['999999999999999999999'], [['5', '6']]])(
    'refuses limit=%j',
    (limit) => {
      expect(parseListRequest({ limit })).toEqual({ ok: false, error: INVALID_LIMIT });
    },
  );

  it.each([[''], ['garbage'], [LINK_ID], [[encodeCursor(LINK_ID), encodeCursor(LINK_ID)]]])(
    'refuses cursor=%j',
    (cursor) => {
      expect(parseListRequest({ cursor })).toEqual({ ok: false, error: INVALID_CURSOR });
    },
  );

  it('takes a tag or a search as long as the longest a link can have, counted in characters (an emoji is one)', () => {
    const tag = '😀'.repeat(LIST_LIMITS.tagMaxLength);
    const search = 'é😀'.repeat(LIST_LIMITS.searchMaxLength / 2);
    expect(parseListRequest({ tag, search })).toEqual({ ok: true, request: { limit: 20, tag, search } });
    expect(parseListRequest({ tag: `${tag}😀` })).toEqual({ ok: false, error: INVALID_TAG_FILTER });
    expect(parseListRequest({ search: `${search}😀` })).toEqual({ ok: false, error: INVALID_SEARCH });
  });

  it.each([[''], ['a\u0000b'], ['a\nb'], ['\ud800'], ['x'.repeat(LIST_LIMITS.tagMaxLength + 1)], [['a', 'b']]])(
    'refuses tag=%j',
    (tag) => {
      expect(parseListRequest({ tag })).toEqual({ ok: false, error: INVALID_TAG_FILTER });
    },
  );

  it.each([[''], ['%00\u0000'], ['\u007f'], ['\udc00x'], ['x'.repeat(LIST_LIMITS.searchMaxLength + 1)], [['a']]])(
    'refuses search=%j',
    (search) => {
      expect(parseListRequest({ search })).toEqual({ ok: false, error: INVALID_SEARCH });
    },
  );
});
