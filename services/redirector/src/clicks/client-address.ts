import ipaddr from 'ipaddr.js';

const PLAIN_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_IPV6 = /^\[([^\]]+)\](?::\d{1,5})?$/;

/**
 * One visitor, one address string, as the visitor hash and the country lookup take it. Proxies and stacks write one
 * client many ways (a port, `[2001:db8::77]:443`, IPv4-mapped `::ffff:203.0.113.77`, upper-case or expanded IPv6, a
 * zone `fe80::1%eth0`); each becomes the address alone, IPv4 dotted and IPv6 in RFC 5952 text. Anything that is not an
 * address (a forged X-Forwarded-For) is kept as it is, trimmed.
 */
export function canonicalClientAddress(raw: string): string {
  // The common case, already canonical: no parse on the click path.
  if (PLAIN_IPV4.test(raw)) return raw;
  let text = raw.trim();
  const bracketed = BRACKETED_IPV6.exec(text);
  const withPort = bracketed ? null : IPV4_WITH_PORT.exec(text);
  if (bracketed) text = bracketed[1] as string;
  else if (withPort) text = withPort[1] as string;
  const zone = text.indexOf('%');
  if (zone > 0 && text.includes(':')) text = text.slice(0, zone);
  if (text.includes(':')) return canonicalIPv6(text);
  if (!ipaddr.isValid(text)) return text;
  return ipaddr.process(text).toString();
}

const IPV6_TEXT = /^[0-9A-Fa-f:.]+$/;
const MAPPED_IPV4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * IPv6 in RFC 5952 text by the WHATWG URL parser's host serializer (Ada, in
 * C++), which writes the same text: lower case, no leading zeros, the first
 * longest run of two or more zero groups as `::`. ipaddr.js takes about ten
 * times as long, and every visitor the redirector does not remember pays it.
 * An IPv4-mapped address is its IPv4 address, as ipaddr.js's `process` makes it.
 */
function canonicalIPv6(text: string): string {
  // Only an address's characters reach the URL parser: nothing else can make it read a host.
  if (!IPV6_TEXT.test(text)) return text;
  let host: string;
  try {
    host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return text;
  }
  const mapped = MAPPED_IPV4.exec(host);
  if (!mapped) return host;
  const high = parseInt(mapped[1]!, 16);
  const low = parseInt(mapped[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
