import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { getPublicSuffix } from 'tldts';
import { excerpt, kindOf, type HttpError } from '@shortlink/http';
import { DOMAIN_ERRORS as E } from './domain-errors';
import { DOMAIN_LIMITS } from './domain-limits';
import { isHighlyRestrictive, labelScripts } from './label-scripts';

export type HostnameResult = { ok: true; hostname: string } | { ok: false; error: HttpError };

/** Names RFC 6761 and 6762 keep for machines and networks of their own: no one proves them in public DNS. */
const SPECIAL_USE = ['localhost', 'local', 'invalid', 'internal', 'arpa', 'onion'];
/** Characters that make it a URL or an address, not a hostname. */
const NOT_A_NAME = /[\s/\\?#@%]/u;
/** WHATWG URL's "ends in a number": a host whose last label is one is read as an IPv4 address, or refused. */
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/i;
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const PORT = /:[0-9]{1,5}$/;

/**
 * The one form of a hostname every route (and the redirector) compares and
 * stores: ASCII (IDN labels in punycode, as WHATWG URL writes them), lower
 * case, without a trailing dot or a port. Or a 400 saying why it cannot be a
 * domain: not a DNS name, an IP address in any spelling a URL parser reads as
 * one, a label mixing scripts, a public suffix alone, or this service's own
 * host (`ownHostname`, already in this form). Pure.
 */
export function normaliseHostname(input: unknown, ownHostname?: string): HostnameResult {
  const invalid = (detail: string) => fail(E.invalidHostname.withDetail(detail, 'hostname'));
  if (input === undefined) return invalid('hostname is missing: expected a name such as links.example.com.');
  if (typeof input !== 'string') return invalid(`hostname must be a string; received ${kindOf(input)}.`);
  // Bounded before any work: IDN mapping and script checks are linear, but need not run on megabytes.
  if (input.length > DOMAIN_LIMITS.hostnameMaxLength * 4) {
    return invalid(`hostname is ${input.length} characters; at most ${DOMAIN_LIMITS.hostnameMaxLength}.`);
  }
  if (input === '') return invalid('hostname is empty.');
  if (NOT_A_NAME.test(input)) {
    return invalid(
      `hostname must be a name alone (links.example.com), not a URL or an address; received ${excerpt(input)}.`,
    );
  }
  const bracketed = /^\[(.*)\](?::[0-9]{1,5})?$/.exec(input);
  if (bracketed !== null || isIP(input) === 6) return ipAddress(input);
  const host = input.replace(PORT, '');
  if (host.includes(':')) return invalid(`hostname holds a colon outside a port: received ${excerpt(input)}.`);
  if (endsInNumber(host.toLowerCase())) return ipAddress(input);
  // WHATWG URL's domain to ASCII (UTS #46, not strict): case folded, full-width forms mapped, IDN to punycode.
  const mapped = domainToASCII(host);
  if (mapped === '') return invalid(`hostname is not a valid domain name: received ${excerpt(input)}.`);
  if (endsInNumber(mapped)) return ipAddress(input);
  const ascii = mapped.endsWith('.') ? mapped.slice(0, -1) : mapped;
  if (ascii.length > DOMAIN_LIMITS.hostnameMaxLength) {
    return invalid(
      `hostname is ${ascii.length} characters as DNS writes it; at most ${DOMAIN_LIMITS.hostnameMaxLength}.`,
    );
  }
  const labels = ascii.split('.');
  if (labels.length < 2) {
    return invalid(
      `hostname ${excerpt(input)} is a single label: a domain has two labels or more (links.example.com).`,
    );
  }
  for (const label of labels) {
    const problem = labelProblem(label);
    if (problem !== null) return invalid(`hostname ${excerpt(input)}: ${problem}`);
  }
  for (const label of domainToUnicode(ascii).split('.')) {
    if (!isHighlyRestrictive(label)) {
      const scripts = [...labelScripts(label)].join(', ');
      return fail(
        E.hostnameMixedScripts.withDetail(
          `The label ${excerpt(label)} mixes ${scripts}: a label is one script, or Latin with Han and Kana, Hangul or Bopomofo.`,
          'hostname',
        ),
      );
    }
  }
  const top = labels.at(-1) ?? '';
  if (SPECIAL_USE.includes(top)) {
    return invalid(`hostname is under .${top}, a special-use name that public DNS does not carry.`);
  }
  // The bundled Public Suffix List (ICANN and private sections), no lookup at run time.
  if (getPublicSuffix(ascii, { allowPrivateDomains: true }) === ascii) {
    return fail(
      E.hostnamePublicSuffix.withDetail(
        `hostname ${excerpt(ascii)} is a public suffix: name a domain under it.`,
        'hostname',
      ),
    );
  }
  if (ownHostname !== undefined && ascii === ownHostname) {
    return fail(E.hostnameSelf.withDetail(`hostname ${excerpt(ascii)} is this service's own host.`, 'hostname'));
  }
  return { ok: true, hostname: ascii };
}

/** The form `normaliseHostname` gives, of a host already known to be one (PUBLIC_BASE_URL's). */
export function ownHostnameOf(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).hostname.replace(/\.$/, '');
}

const fail = (error: HttpError): HostnameResult => ({ ok: false, error });

function ipAddress(input: string): HostnameResult {
  return fail(
    E.hostnameIpAddress.withDetail(
      `hostname ${excerpt(input)} is an IP address, or a name URL parsers read as one (its last label is a number).`,
      'hostname',
    ),
  );
}

function endsInNumber(host: string): boolean {
  const labels = host.split('.');
  if (labels.at(-1) === '' && labels.length > 1) labels.pop();
  return NUMERIC_LABEL.test(labels.at(-1) ?? '');
}

function labelProblem(label: string): string | null {
  if (label === '') return 'it has an empty label (two dots in a row, or a dot first).';
  if (label.length > DOMAIN_LIMITS.labelMaxLength) {
    return `the label ${excerpt(label)} is ${label.length} characters; at most ${DOMAIN_LIMITS.labelMaxLength}.`;
  }
  if (label.includes('_')) return `the label ${excerpt(label)} holds an underscore, which hostnames may not.`;
  if (!LABEL.test(label)) {
    return `the label ${excerpt(label)} must be letters, digits and hyphens, without a hyphen first or last.`;
  }
  // RFC 5891: `??--` is kept for IDNA's own prefixes; only xn-- (checked by domainToASCII) is one.
  if (label.slice(2, 4) === '--' && !label.startsWith('xn--')) {
    return `the label ${excerpt(label)} has hyphens in its third and fourth places, which IDNA keeps for itself.`;
  }
  return null;
}
