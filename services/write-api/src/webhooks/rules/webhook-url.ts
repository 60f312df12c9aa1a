import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { excerpt, kindOf, type HttpError } from '@shortlink/http';
import { WEBHOOK_ERRORS, WEBHOOK_LIMITS } from '@shortlink/webhooks';
import { pointsAtThisService, type ServiceAddresses } from '../../links/rules/self-link';

/** The operator's switches (WEBHOOKS_ALLOW_HTTP, WEBHOOKS_ALLOW_PRIVATE_NETWORKS): local testing only. */
export interface WebhookUrlPolicy {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
  service: ServiceAddresses;
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/**
 * What is wrong with a webhook URL, or null when deliveries may be sent to it.
 * A host named by an address must be a public unicast one: loopback, private,
 * link-local, unique-local, CGNAT, multicast and the cloud metadata addresses
 * (169.254.169.254, fd00:ec2::254) are all outside it, in any spelling the URL
 * parser accepts (`2130706433`, `[::ffff:127.0.0.1]`). A host named by a name is
 * checked again when the dispatcher connects (against DNS rebinding).
 */
export function webhookUrlRejection(url: unknown, policy: WebhookUrlPolicy): HttpError | null {
  const invalid = (detail: string) => WEBHOOK_ERRORS.invalidUrl.withDetail(detail, 'url');
  const schemes = policy.allowHttp ? 'https:// (or http://)' : 'https://';
  if (url === undefined) return invalid(`url is missing: expected an absolute ${schemes} URL.`);
  if (typeof url !== 'string') return invalid(`url must be a string; received ${kindOf(url)}.`);
  if (url.length > WEBHOOK_LIMITS.urlMaxLength) {
    return WEBHOOK_ERRORS.urlTooLong.withDetail(
      `url is ${url.length} characters; at most ${WEBHOOK_LIMITS.urlMaxLength}.`,
      'url',
    );
  }
  if (CONTROL.test(url)) return invalid(`url holds a control character: received ${excerpt(url)}.`);
  if (url.trim() !== url || url === '')
    return invalid(`url has white space before or after it: received ${excerpt(url)}.`);
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined)
    return invalid(`url has no scheme: expected it to start with ${schemes}; received ${excerpt(url)}.`);
  if (scheme === 'http' && !policy.allowHttp) {
    return WEBHOOK_ERRORS.httpsRequired.withDetail(`url is http://; deliveries are sent only to https://.`, 'url');
  }
  if (scheme !== 'https' && scheme !== 'http') {
    return invalid(`url's scheme is ${excerpt(`${scheme}:`)}; expected ${schemes}.`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return invalid(`url is not a valid URL: received ${excerpt(url)}.`);
  }
  if (parsed.hostname === '') return invalid(`url has no host: received ${excerpt(url)}.`);
  // Not echoed: it may be a secret.
  if (parsed.username !== '' || parsed.password !== '') {
    return WEBHOOK_ERRORS.urlCredentials.withDetail('url holds a user name or password before its host.', 'url');
  }
  // A fragment is never sent in a request: a URL that has one means something it will not get.
  if (parsed.hash !== '' || url.includes('#')) {
    return invalid('url has a fragment (#…), which is never sent to the endpoint: remove it.');
  }
  if (!policy.allowPrivateNetworks) {
    const refused = nonPublicHost(parsed.hostname);
    if (refused !== null) {
      return WEBHOOK_ERRORS.urlPrivate.withDetail(`url's host ${excerpt(parsed.host)} is ${refused}.`, 'url');
    }
  }
  if (pointsAtThisService(parsed, policy.service)) {
    return WEBHOOK_ERRORS.urlSelf.withDetail(`url's host ${excerpt(parsed.host)} is this service.`, 'url');
  }
  return null;
}

const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/** What kind of non-public host a hostname is (as the URL parser gives it), or null for a public one or a name. */
export function nonPublicHost(hostname: string): string | null {
  const bare = hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return 'a name of the local machine';
  if (isIP(bare) === 0) return null;
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
  const address = ipaddr.process(bare);
  if (METADATA.has(address.toString())) return 'a cloud metadata address';
  const range = address.range();
  if (range === 'unicast') return null;
  // ipaddr.js names ranges in camel case (`linkLocal`, `carrierGradeNat`): a detail says them in words.
  return `a ${range.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} address`;
}
