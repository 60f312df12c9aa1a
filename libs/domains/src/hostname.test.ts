import { normaliseHostname } from './hostname';

const OWN = 'sho.rt';
const accept = (input: unknown) => normaliseHostname(input, OWN);
const codeOf = (input: unknown) => {
  const result = accept(input);
  return result.ok ? result.hostname : result.error.code;
};

describe('normaliseHostname', () => {
  it.each([
    ['Links.Example.COM', 'links.example.com'],
    ['links.example.com.', 'links.example.com'],
    ['links.example.com:8443', 'links.example.com'],
    ['ｌｉｎｋｓ.example.com', 'links.example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['日本.jp', 'xn--wgv71a.jp'],
    // Single-script Cyrillic, and the allowed mixes: Latin with Han and Kana, Hangul or Bopomofo.
    ['пример.рф', 'xn--e1afmkfd.xn--p1ai'],
    ['abcかな漢字.jp', 'xn--abc-n73b9f805xn72a.jp'],
    ['go한국語.kr', 'xn--go-0u0g710joz4b.kr'],
    ['a-1.b-2.example.com', 'a-1.b-2.example.com'],
    ['me.github.io', 'me.github.io'],
    ['links.sho.rt', 'links.sho.rt'],
  ])('keeps %j as %j', (input, hostname) => {
    expect(accept(input)).toEqual({ ok: true, hostname });
  });

  it.each([
    // Not a DNS name at all.
    [undefined, 'invalid_hostname'],
    [42, 'invalid_hostname'],
    ['', 'invalid_hostname'],
    ['https://links.example.com/', 'invalid_hostname'],
    ['links.example.com/path', 'invalid_hostname'],
    ['user@links.example.com', 'invalid_hostname'],
    ['links example.com', 'invalid_hostname'],
    ['links.example.com\u0000', 'invalid_hostname'],
    ['links..example.com', 'invalid_hostname'],
    ['.example.com', 'invalid_hostname'],
    ['-links.example.com', 'invalid_hostname'],
    ['links_1.example.com', 'invalid_hostname'],
    ['_dmarc.example.com', 'invalid_hostname'],
    ['ab--cd.example.com', 'invalid_hostname'],
    ['xn--zz.example.com', 'invalid_hostname'],
    [`${'a'.repeat(64)}.example.com`, 'invalid_hostname'],
    [`${'abcdefghi.'.repeat(25)}example.com`, 'invalid_hostname'],
    ['x'.repeat(5000), 'invalid_hostname'],
    ['a:b:c.example.com', 'invalid_hostname'],
    // Single labels, special-use names.
    ['localhost', 'invalid_hostname'],
    ['intranet', 'invalid_hostname'],
    ['com', 'invalid_hostname'],
    ['printer.local', 'invalid_hostname'],
    ['app.localhost', 'invalid_hostname'],
    ['1.0.0.127.in-addr.arpa', 'invalid_hostname'],
    // IP literals in every spelling WHATWG URL reads as an address.
    ['127.0.0.1', 'hostname_ip_address'],
    ['127.1', 'hostname_ip_address'],
    ['2130706433', 'hostname_ip_address'],
    ['0x7f000001', 'hostname_ip_address'],
    ['0x7f.0.0.1', 'hostname_ip_address'],
    ['0177.0.0.1', 'hostname_ip_address'],
    ['１２７.0.0.1', 'hostname_ip_address'],
    ['1.2.3.09', 'hostname_ip_address'],
    ['foo.123', 'hostname_ip_address'],
    ['foo.0x', 'hostname_ip_address'],
    ['8.8.8.8.', 'hostname_ip_address'],
    ['::1', 'hostname_ip_address'],
    ['[::1]', 'hostname_ip_address'],
    ['[::ffff:127.0.0.1]:80', 'hostname_ip_address'],
    ['2001:db8::1', 'hostname_ip_address'],
    // Homographs: a label mixing scripts (Cyrillic а in Latin, Greek ο in Latin, Latin in Cyrillic).
    ['аpple.com', 'hostname_mixed_scripts'],
    ['xn--pple-43d.com', 'hostname_mixed_scripts'],
    ['gοogle.com', 'hostname_mixed_scripts'],
    ['пpимер.рф', 'hostname_mixed_scripts'],
    ['한국ひらがな.kr', 'hostname_mixed_scripts'],
    // A public suffix alone (ICANN and private sections).
    ['co.uk', 'hostname_public_suffix'],
    ['github.io', 'hostname_public_suffix'],
    // This service's own host, in any spelling.
    ['sho.rt', 'hostname_self_reference'],
    ['SHO.RT.', 'hostname_self_reference'],
    ['sho.rt:443', 'hostname_self_reference'],
  ])('refuses %j with %s', (input, code) => {
    const result = accept(input);
    expect(result.ok ? result.hostname : result.error.code).toBe(code);
    if (!result.ok) {
      expect(result.error.statusCode).toBe(400);
      expect(result.error.explained).toMatchObject({ field: 'hostname', detail: expect.any(String) });
    }
  });

  it('never answers with a hostname longer than DNS takes', () => {
    expect(codeOf(`${'abcdefghi.'.repeat(24)}example.com`)).toBe(`${'abcdefghi.'.repeat(24)}example.com`);
  });
});
