import ipaddr from 'ipaddr.js';

const PLAIN_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_IPV6 = /^\[([^\]]+)\](?::\d{1,5})?$/;

/**
 * One visitor, one address string: the form the visitor hash and the country
 * lookup take. Proxies and stacks write the same client in many ways: with a
 * port (`203.0.113.77:4711`, `[2001:db8::77]:443`), IPv4 mapped into IPv6
 * (`::ffff:203.0.113.77`, what a dual-stack socket reports), IPv6 in upper
 * case or expanded, with a zone (`fe80::1%eth0`). Each becomes the address
 * alone, IPv4 in dotted decimal and IPv6 in its RFC 5952 text. Anything that is
 * not an address (a forged X-Forwarded-For) is kept as it is, trimmed.
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
  if (!ipaddr.isValid(text)) return text;
  const address = ipaddr.process(text);
  return address.toString();
}
