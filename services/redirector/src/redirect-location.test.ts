import { redirectLocation } from './redirect-location';

describe('the Location of a redirect', () => {
  it('is the WHATWG serialisation of the destination', () => {
    expect(redirectLocation('https://example.com/landing?utm=x#top')).toBe('https://example.com/landing?utm=x#top');
    expect(redirectLocation('https://example.com')).toBe('https://example.com/');
    expect(redirectLocation('HTTPS://Example.COM:443/A?b=%20c')).toBe('https://example.com/A?b=%20c');
  });

  it('leaves one reading of a URL that parsers would read differently', () => {
    expect(redirectLocation('https://example.com\\@evil.example/')).toBe('https://example.com/@evil.example/');
    expect(redirectLocation('https://example.com\\\\evil.example/x')).toBe('https://example.com//evil.example/x');
    expect(redirectLocation('https://0x7f.1/')).toBe('https://127.0.0.1/');
  });

  it('is printable ASCII, whatever was submitted', () => {
    expect(redirectLocation('https://example.com/straße?q=ü')).toBe('https://example.com/stra%C3%9Fe?q=%C3%BC');
    expect(redirectLocation('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(redirectLocation('https://bücher.example/')).toBe('https://xn--bcher-kva.example/');
  });

  it('is null for a destination that is no URL', () => {
    expect(redirectLocation('not a url')).toBeNull();
  });
});
