import type { LinkRouting } from '@shortlink/events';
import { kindOf } from '@shortlink/http';
import { validateRouting } from '@shortlink/redirect-rules';
import { explain, REJECTIONS, type Rejection } from '../../write-api-errors';
import { destinationUrlRejection, isRecord, tagRejection } from './create-link-validation';
import { updateLinkBody } from './link-fields';
import type { ServiceAddresses } from './self-link';
import { unknownField } from './unknown-fields';

/** What a PATCH asks to change; an absent field stays as it is. */
export interface LinkChanges {
  destinationUrl?: string;
  /** null removes the tag. */
  tag?: string | null;
  /** Replaces the rules whole; `[]` removes them. */
  rules?: LinkRouting['rules'];
  /** Replaces the variants whole; null removes them. */
  variants?: LinkRouting['variants'];
}

const CHANGEABLE = Object.keys(updateLinkBody.shape);

/**
 * Validates a change request with creation's rules and texts for `url` and
 * `tag`. As in creation, unknown fields are refused (a misspelt field, or
 * `customSlug`, must not look like a successful change); so is a body that
 * changes nothing. `tag: null` removes the tag; `url: null` is invalid.
 * Pure: no I/O, no clock.
 */
export function validateUpdateLink(
  body: unknown,
  service: ServiceAddresses,
): { ok: true; changes: LinkChanges } | { ok: false; rejection: Rejection } {
  const reject = (rejection: Rejection) => ({ ok: false as const, rejection });
  if (!isRecord(body))
    return reject(explain(REJECTIONS.invalidBody, `The body is ${kindOf(body)}: expected a JSON object.`));
  const unknown = unknownField(body, CHANGEABLE);
  if (unknown) {
    const detail =
      unknown.field === 'customSlug' ? 'customSlug cannot be changed: a link keeps its slug.' : unknown.detail;
    return reject(explain(REJECTIONS.unknownField, detail, unknown.field));
  }
  if (Object.keys(body).length === 0) {
    return reject(explain(REJECTIONS.emptyChange, 'The body is {}: give url, tag, rules or variants.'));
  }

  const changes: LinkChanges = {};
  if ('url' in body) {
    const { url } = body;
    const problem = destinationUrlRejection(url, service);
    if (problem || typeof url !== 'string') return reject(problem ?? REJECTIONS.invalidBody);
    changes.destinationUrl = url;
  }
  if ('tag' in body) {
    const { tag } = body;
    const problem = tagRejection(tag);
    if (problem || (tag !== null && typeof tag !== 'string')) return reject(problem ?? REJECTIONS.tag);
    changes.tag = tag;
  }
  if ('rules' in body || 'variants' in body) {
    // Each list is replaced whole, so each is checked whole; an absent one stays as it is.
    const routing = validateRouting(body, (destination) => destinationUrlRejection(destination, service));
    if (!routing.ok) return reject(routing.rejection);
    if ('rules' in body) changes.rules = routing.routing.rules;
    if ('variants' in body) changes.variants = routing.routing.variants;
  }
  return { ok: true, changes };
}
