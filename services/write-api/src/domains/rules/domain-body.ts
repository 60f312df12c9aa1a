import { kindOf, type HttpError } from '@shortlink/http';
import { DOMAIN_ERRORS, normaliseHostname, type DomainChanges } from '@shortlink/domains';
import { isRecord } from '../../links/rules/create-link-validation';
import { destinationUrlRejection } from '../../links/rules/create-link-validation';
import type { ServiceAddresses } from '../../links/rules/self-link';
import { unknownField } from '../../links/rules/unknown-fields';
import { rejectionError } from '../../write-api-errors';

type Result<T> = { ok: true; value: T } | { ok: false; error: HttpError };
const fail = (error: HttpError) => ({ ok: false as const, error });

const CREATE_FIELDS = ['hostname'];
const CHANGE_FIELDS = ['rootRedirect', 'notFoundRedirect'] as const;

/** `POST /api/v1/domains`: a body of `hostname` alone, normalised, or the first problem. Pure. */
export function validateCreateDomain(body: unknown, ownHostname: string): Result<string> {
  if (!isRecord(body)) {
    return fail(
      DOMAIN_ERRORS.invalidBody.withDetail(`A domain is ${kindOf(body)}: expected a JSON object with hostname.`),
    );
  }
  const unknown = unknownField(body, CREATE_FIELDS);
  if (unknown) return fail(DOMAIN_ERRORS.unknownCreateField.withDetail(unknown.detail, unknown.field));
  const hostname = normaliseHostname(body.hostname, ownHostname);
  return hostname.ok ? { ok: true, value: hostname.hostname } : fail(hostname.error);
}

/**
 * `PATCH /api/v1/domains/:hostname`: the root and not-found redirects, each an
 * absolute http(s) URL under a link destination's rules, or null to remove it. Pure.
 */
export function validateDomainChange(body: unknown, service: ServiceAddresses): Result<DomainChanges> {
  if (!isRecord(body)) {
    return fail(DOMAIN_ERRORS.invalidBody.withDetail(`A change is ${kindOf(body)}: expected a JSON object.`));
  }
  const unknown = unknownField(body, CHANGE_FIELDS);
  if (unknown) return fail(DOMAIN_ERRORS.unknownChangeField.withDetail(unknown.detail, unknown.field));
  if (Object.keys(body).length === 0) return fail(DOMAIN_ERRORS.emptyChange);
  const changes: DomainChanges = {};
  for (const field of CHANGE_FIELDS) {
    if (!(field in body)) continue;
    const value = body[field];
    if (value === null) {
      changes[field] = null;
      continue;
    }
    // A destination's rules and texts, told of this field: the detail is written of `url`.
    const rejection = destinationUrlRejection(value, service);
    if (rejection !== null) {
      return fail(rejectionError({ ...rejection, detail: rejection.detail.replace(/^url\b/, field), field }));
    }
    changes[field] = value as string;
  }
  return { ok: true, value: changes };
}
