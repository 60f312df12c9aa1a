import { HTTP_ERRORS, HttpError, httpError } from '@shortlink/http';
import { DOMAIN_LIMITS } from './domain-limits';

/**
 * The domains API's error texts, each once (docs/errors.md lists them). A
 * refusal says in `detail` what was received and names the field in `field`;
 * the texts and codes are stable.
 */
export const DOMAIN_ERRORS = {
  /** An unknown hostname, a deleted domain and another account's alike: a claim does not leak. */
  notFound: new HttpError(404, 'Domain not found', 'not_found', {
    detail: 'This account has no domain with this hostname (or it was deleted).',
  }),
  invalidBody: httpError(HTTP_ERRORS.invalidBody),
  unknownCreateField: new HttpError(400, 'Only hostname can be given', 'unknown_field', {
    detail: 'The body names a field a domain create does not take.',
  }),
  unknownChangeField: new HttpError(400, 'Only rootRedirect and notFoundRedirect can be changed', 'unknown_field', {
    detail: 'The body names a field a domain change does not take.',
  }),
  emptyChange: new HttpError(400, 'Nothing to change: give rootRedirect, notFoundRedirect or both', 'empty_change', {
    detail: 'The body is {}.',
  }),
  invalidHostname: new HttpError(400, 'Hostnames must be DNS names such as links.example.com', 'invalid_hostname', {
    detail: `hostname must be a DNS name of two labels or more, at most ${DOMAIN_LIMITS.hostnameMaxLength} characters, each label at most ${DOMAIN_LIMITS.labelMaxLength} of letters, digits and hyphens.`,
    field: 'hostname',
  }),
  hostnameIpAddress: new HttpError(400, 'Hostnames must be names, not IP addresses', 'hostname_ip_address', {
    detail: 'hostname is an IP address, or a name a URL parser reads as one.',
    field: 'hostname',
  }),
  hostnameMixedScripts: new HttpError(
    400,
    'Each label of a hostname must be written in one script',
    'hostname_mixed_scripts',
    {
      detail:
        'A label of hostname mixes scripts (Latin with Cyrillic, say); only Latin with Han and Kana, Hangul or Bopomofo may be mixed.',
      field: 'hostname',
    },
  ),
  hostnamePublicSuffix: new HttpError(400, 'A public suffix cannot be a domain', 'hostname_public_suffix', {
    detail: 'hostname is a public suffix (co.uk, github.io): name a domain under it.',
    field: 'hostname',
  }),
  hostnameSelf: new HttpError(400, 'This is the short-link service’s own hostname', 'hostname_self_reference', {
    detail: 'hostname is the host of this service’s public base URL.',
    field: 'hostname',
  }),
  /** The same account added the same hostname before. */
  exists: new HttpError(409, 'This domain is already added', 'domain_exists', {
    detail: 'This account has added this hostname already: verify it, or delete it first.',
    field: 'hostname',
  }),
  /** Another account verified this hostname: at most one account holds a verified hostname. */
  taken: new HttpError(409, 'This hostname is verified by another account', 'domain_taken', {
    detail: 'Another account proved it controls this hostname; it must delete the domain before another can claim it.',
    field: 'hostname',
  }),
  /** Links are on the domain: deleting it would leave them unreachable, and their slugs held. */
  inUse: new HttpError(409, 'This domain has links', 'domain_in_use', {
    detail: 'Links are on this domain: delete them first (GET /api/v1/links lists each link’s domain).',
  }),
  limitReached: new HttpError(
    403,
    `An account can have at most ${DOMAIN_LIMITS.perAccount} domains`,
    'domain_limit_reached',
    { detail: `This account has ${DOMAIN_LIMITS.perAccount} domains already: delete one first.` },
  ),
  /** DNS answered, and the answer holds no record of this claim. */
  notVerified: new HttpError(422, 'The verification TXT record was not found', 'domain_not_verified', {
    detail:
      'DNS holds no TXT record with this claim’s value yet: publish it, wait for DNS to carry it, and verify again.',
  }),
  /** DNS did not answer, or answered with a failure: the answer is unknown, not negative. */
  dnsUnavailable: new HttpError(
    503,
    'The DNS lookup failed. Try again in a moment.',
    'dns_unavailable',
    { detail: 'The resolver timed out or answered with a failure; nothing was changed.' },
    { 'Retry-After': '30' },
  ),
} as const;
