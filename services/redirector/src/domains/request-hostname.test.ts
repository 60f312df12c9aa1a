import { requestHostname } from './request-hostname';

describe('requestHostname', () => {
  it.each([
    ['go.example.com', 'go.example.com'],
    ['go.example.com:8080', 'go.example.com'],
    ['Go.Example.COM', 'go.example.com'],
    ['go.example.com.', 'go.example.com'],
    ['GO.example.com.:443', 'go.example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['localhost:3000', 'localhost'],
    ['127.0.0.1:3000', '127.0.0.1'],
    // As the URL parser, and normaliseHostname with it, reads it.
    ['ex%41mple.com', 'example.com'],
  ])('reads %j as %j', (host, expected) => {
    expect(requestHostname(host)).toBe(expected);
  });

  it.each([
    undefined,
    '',
    '[::1]:3000',
    '[::1]',
    'a b.example',
    'x'.repeat(261),
    `${'ä'.repeat(65_536)}:1`,
    'a\u0000.example',
  ])('finds no hostname in %j', (host) => {
    expect(requestHostname(host)).toBeNull();
  });
});
