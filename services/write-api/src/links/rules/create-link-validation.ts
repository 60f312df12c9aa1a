import { PLANS, type Plan } from '@shortlink/accounts';
import { planRejection, REJECTIONS, type Rejection } from '../../write-api-errors';
import { customSlugField, destinationUrlField, fits, tagField } from './link-fields';
import { isReservedSlug } from './reserved-slugs';
import { pointsAtThisService, type ServiceAddresses } from './self-link';

export interface CreateLinkInput {
  destinationUrl: string;
  customSlug: string | null;
  tag: string | null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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
  const urlProblem = destinationUrlRejection(url, service);
  if (urlProblem || typeof url !== 'string') return reject(urlProblem ?? REJECTIONS.invalidBody);

  let slug: string | null = null;
  if (customSlug !== undefined && customSlug !== null) {
    if (typeof customSlug !== 'string' || !fits(customSlugField, customSlug)) return reject(REJECTIONS.slugFormat);
    if (isReservedSlug(customSlug)) return reject(REJECTIONS.slugReserved);
    if (customSlug.length < PLANS[plan].minCustomSlugLength) return reject(planRejection(plan));
    slug = customSlug;
  }

  // `tag: null` means "not given" here; a PATCH reads it as "remove the tag".
  const cleanTag = tag ?? null;
  const tagProblem = tagRejection(cleanTag);
  if (tagProblem || (cleanTag !== null && typeof cleanTag !== 'string')) return reject(tagProblem ?? REJECTIONS.tag);

  return { ok: true, input: { destinationUrl: url, customSlug: slug, tag: cleanTag } };
}

/**
 * The rules of a destination URL, for creation and change alike: what is
 * wrong with `url`, or null when it may be stored.
 */
export function destinationUrlRejection(url: unknown, service: ServiceAddresses): Rejection | null {
  if (typeof url !== 'string') return REJECTIONS.invalidBody;
  const shape = destinationUrlField.safeParse(url);
  // Its length first: a long URL is told so, whatever else is wrong with it.
  if (!shape.success) {
    return shape.error.issues.some((i) => i.code === 'too_big') ? REJECTIONS.urlTooLong : REJECTIONS.invalidBody;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return REJECTIONS.invalidBody;
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    return REJECTIONS.invalidBody;
  }
  // `new URL` accepts a few forms a person would not call a URL ("https:example.com"): the
  // field's schema asks for `http://` or `https://` as written.
  if (parsed.username !== '' || parsed.password !== '') return REJECTIONS.urlCredentials;
  if (pointsAtThisService(parsed, service)) return REJECTIONS.urlSelf;
  return null;
}

/** The rules of a tag (null: no tag), for creation and change alike. */
export function tagRejection(tag: unknown): Rejection | null {
  if (tag === null) return null;
  return fits(tagField, tag) ? null : REJECTIONS.tag;
}
