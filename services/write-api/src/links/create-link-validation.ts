import { PLANS, type Plan } from '@shortlink/accounts';
import { LIMITS, planRejection, REJECTIONS, type Rejection } from '../write-api-errors';
import { CUSTOM_SLUG } from './slug';
import { isReservedSlug } from './reserved-slugs';
import { pointsAtThisService, type ServiceAddresses } from './self-link';

export interface CreateLinkInput {
  destinationUrl: string;
  customSlug: string | null;
  tag: string | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** C0 controls, DEL and C1 controls: invisible, and no part of a URL or a label. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** A URL is refused, not trimmed, when it starts or ends with white space: `destinationUrl` is echoed as submitted. */
const SURROUNDING_SPACE = /^\s|\s$/;

/**
 * Validates a create request in the order the spec lists its errors: the body
 * and URL first, then the custom slug's format, the reserved list, and the
 * plan. Pure: no I/O, no clock.
 */
export function validateCreateLink(
  body: unknown,
  plan: Plan,
  service: ServiceAddresses,
): { ok: true; input: CreateLinkInput } | { ok: false; rejection: Rejection } {
  const reject = (rejection: Rejection) => ({ ok: false as const, rejection });
  if (!isRecord(body)) return reject(REJECTIONS.invalidBody);

  const { url, customSlug, tag } = body;
  if (typeof url !== 'string') return reject(REJECTIONS.invalidBody);
  if (url.length > LIMITS.urlMaxLength) return reject(REJECTIONS.urlTooLong);
  if (CONTROL.test(url) || SURROUNDING_SPACE.test(url)) return reject(REJECTIONS.invalidBody);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return reject(REJECTIONS.invalidBody);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    return reject(REJECTIONS.invalidBody);
  }
  // `new URL` accepts a few forms a person would not call a URL ("https:example.com").
  if (!/^https?:\/\//i.test(url)) return reject(REJECTIONS.invalidBody);
  if (parsed.username !== '' || parsed.password !== '') return reject(REJECTIONS.urlCredentials);
  if (pointsAtThisService(parsed, service)) return reject(REJECTIONS.urlSelf);

  let slug: string | null = null;
  if (customSlug !== undefined && customSlug !== null) {
    if (typeof customSlug !== 'string' || !CUSTOM_SLUG.test(customSlug)) return reject(REJECTIONS.slugFormat);
    if (isReservedSlug(customSlug)) return reject(REJECTIONS.slugReserved);
    if (customSlug.length < PLANS[plan].minCustomSlugLength) return reject(planRejection(plan));
    slug = customSlug;
  }

  let cleanTag: string | null = null;
  if (tag !== undefined && tag !== null) {
    if (typeof tag !== 'string' || tag.length === 0 || tag.length > LIMITS.tagMaxLength || CONTROL.test(tag)) {
      return reject(REJECTIONS.tag);
    }
    cleanTag = tag;
  }

  return { ok: true, input: { destinationUrl: url, customSlug: slug, tag: cleanTag } };
}
