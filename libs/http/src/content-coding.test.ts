import { isContentCoded } from './content-coding';

describe('isContentCoded', () => {
  it.each([[undefined], [''], ['identity'], ['IDENTITY'], [' identity , identity ']])(
    'takes a body with no coding as it is (%p)',
    (header) => expect(isContentCoded(header)).toBe(false),
  );

  it.each([['gzip'], ['GZip'], ['br'], ['deflate'], ['x-gzip'], ['zstd'], ['identity, gzip'], ['gzip, identity']])(
    'sees a coding in %p',
    (header) => expect(isContentCoded(header)).toBe(true),
  );
});
