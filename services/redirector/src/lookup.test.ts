import { locationOf } from './lookup';

describe('locationOf', () => {
  it('keeps a printable ASCII destination exactly as submitted', () => {
    expect(locationOf('https://example.com')).toBe('https://example.com');
    expect(locationOf('https://Example.com/A?b=%20c#d')).toBe('https://Example.com/A?b=%20c#d');
  });

  it('percent-encodes what a header cannot carry', () => {
    expect(locationOf('https://example.com/straße?q=ü')).toBe('https://example.com/stra%C3%9Fe?q=%C3%BC');
    expect(locationOf('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(locationOf('https://bücher.example/')).toBe('https://xn--bcher-kva.example/');
  });
});
