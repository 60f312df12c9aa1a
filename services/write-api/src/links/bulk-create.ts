import { HTTP_ERRORS, HttpError, isDependencyOutage, kindOf } from '@shortlink/http';
import type { LinkResource } from '@shortlink/links';
import type { Plan } from '@shortlink/accounts';
import { BULK_SIZE, explain, LIMITS, rejectionError, REJECTIONS, type Rejection } from '../write-api-errors';
import type { CreateOutcome } from './create-link';
import { validateCreateLink, type CreateLinkInput } from './rules/create-link-validation';
import type { ServiceAddresses } from './rules/self-link';
import { unknownField } from './rules/unknown-fields';

/** One link's result in a bulk response: its own status, and its Link or its error body. */
export type BulkResult =
  { status: 201; link: LinkResource } | { status: number; error: string; code: string; detail: string; field?: string };

/**
 * The items of `{"links": [...]}`. A body of another shape is refused whole
 * (400 Invalid request body; another field, 400 unknown_field), and so is a batch of no link or of more than the limit; each item is then validated on its own, as a single create is.
 */
export function bulkItems(body: unknown): { ok: true; items: unknown[] } | { ok: false; error: HttpError } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return invalid(`The body is ${kindOf(body)}: expected {"links": [...]}.`);
  }
  const unknown = unknownField(body as Record<string, unknown>, ['links']);
  if (unknown)
    return { ok: false, error: rejectionError(explain(REJECTIONS.unknownBulkField, unknown.detail, unknown.field)) };
  // The links are checked one by one (validateBulkItem); nothing else may be beside them.
  const { links } = body as { links?: unknown };
  if (!Array.isArray(links)) return invalid(`links is ${kindOf(links)}: expected an array of links.`, 'links');
  if (links.length === 0 || links.length > LIMITS.bulkMaxLinks) {
    return { ok: false, error: BULK_SIZE.withDetail(`links holds ${links.length} links.`, 'links') };
  }
  return { ok: true, items: links };

  function invalid(detail: string, field?: string) {
    return { ok: false as const, error: rejectionError(explain(REJECTIONS.invalidBody, detail, field)) };
  }
}

export type Validated = { ok: true; input: CreateLinkInput } | { ok: false; rejection: Rejection };

/**
 * A bulk item is validated as a single create's body is, text no store can
 * hold included, so that one bad link never fails its batch.
 */
export function validateBulkItem(item: unknown, plan: Plan, service: ServiceAddresses): Validated {
  return validateCreateLink(item, plan, service);
}

/**
 * The results in request order: each rejected item its rejection, each valid
 * one the outcome of its create (`outcomes` holds one per valid item, in order).
 * An error that is not the service's own answer is reported through
 * `onUnexpected` and shown as a single create would show it.
 */
export function assembleBulkResults(
  validated: readonly Validated[],
  outcomes: readonly CreateOutcome[],
  onUnexpected: (error: unknown) => void,
): BulkResult[] {
  let next = 0;
  return validated.map((v): BulkResult => {
    if (!v.ok) return { ...v.rejection };
    const outcome = outcomes[next++];
    if (outcome === undefined) throw new Error('fewer create outcomes than valid items');
    if (outcome.ok) return { status: 201, link: outcome.link };
    return errorResult(outcome.error, onUnexpected);
  });
}

/** The status and body the error handler would give this error for a single create. */
function errorResult(error: unknown, onUnexpected: (error: unknown) => void): BulkResult {
  if (error instanceof HttpError) {
    return { status: error.statusCode, error: error.message, code: error.code, ...error.explained };
  }
  onUnexpected(error);
  const known = isDependencyOutage(error) ? HTTP_ERRORS.unavailable : HTTP_ERRORS.internal;
  return { status: known.status, error: known.error, code: known.code, detail: known.detail };
}
