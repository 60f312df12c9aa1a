import { PLANS, type Plan } from '@shortlink/accounts';
import { isStorableJson, type LinkRouting } from '@shortlink/events';
import { excerpt, kindOf, type HttpError } from '@shortlink/http';
import { linkDomainOf } from '@shortlink/links';
import { validateRouting } from '@shortlink/redirect-rules';
import { explain, LIMITS, planRejection, REJECTIONS, type Rejection } from '../../write-api-errors';
import { customSlugField, fits, HTTP_SCHEME, NO_CONTROL, tagField, TRIMMED } from './link-fields';
import { isReservedSlug } from './reserved-slugs';
import { pointsAtThisService, type ServiceAddresses } from './self-link';
import { unknownField } from './unknown-fields';

export interface CreateLinkInput {
  destinationUrl: string;
  customSlug: string | null;
  tag: string | null;
  /** Its rules and variants, as validated; absent when none. */
  routing?: LinkRouting;
  /**
   * The branded domain it goes on, in stored form; absent or null: the installation's own. Whether the account has
   * verified it is the create's to check (it reads the store).
   */
  domain?: string | null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const CREATE_FIELDS = ['url', 'customSlug', 'tag', 'rules', 'variants', 'domain'];

/**
 * Validates a create request in the order the spec lists its errors: the body
 * (a JSON object of known fields, its text storable) and URL first, then the
 * custom slug's format, the reserved list, and the plan. A custom slug holding
 * text no store can hold (U+0000, a lone surrogate) gets the slug's own text:
 * it is checked by the slug's rule, not the body's. Pure: no I/O, no clock.
 */
export function validateCreateLink(
  body: unknown,
  plan: Plan,
  service: ServiceAddresses,
): { ok: true; input: CreateLinkInput } | { ok: false; rejection: Rejection } {
  const reject = (rejection: Rejection) => ({ ok: false as const, rejection });
  if (!isRecord(body)) {
    return reject(explain(REJECTIONS.invalidBody, `A link is ${kindOf(body)}: expected a JSON object with url.`));
  }
  const unknown = unknownField(body, CREATE_FIELDS);
  if (unknown) return reject(explain(REJECTIONS.unknownCreateField, unknown.detail, unknown.field));

  const { url, customSlug, tag } = body;
  const unstorable = (['url', 'tag'] as const).find((f) => !isStorableJson(body[f] ?? null));
  if (unstorable !== undefined) {
    return reject(
      explain(
        REJECTIONS.invalidBody,
        `${unstorable} holds U+0000 or a lone surrogate, which no text field may hold.`,
        unstorable,
      ),
    );
  }
  const urlProblem = destinationUrlRejection(url, service);
  if (urlProblem || typeof url !== 'string') return reject(urlProblem ?? REJECTIONS.invalidBody);

  let slug: string | null = null;
  if (customSlug !== undefined && customSlug !== null) {
    const slugProblem = customSlugProblem(customSlug);
    if (slugProblem !== null) return reject(explain(REJECTIONS.slugFormat, slugProblem, 'customSlug'));
    const valid = customSlug as string;
    if (isReservedSlug(valid)) {
      return reject(explain(REJECTIONS.slugReserved, `customSlug ${excerpt(valid)} is a reserved word.`, 'customSlug'));
    }
    const shortest = PLANS[plan].minCustomSlugLength;
    if (valid.length < shortest) {
      return reject(
        explain(
          planRejection(plan),
          `customSlug is ${valid.length} characters; this plan (${plan}) takes ${shortest} or more.`,
          'customSlug',
        ),
      );
    }
    slug = valid;
  }

  // `tag: null` means "not given" here; a PATCH reads it as "remove the tag".
  const cleanTag = tag ?? null;
  const tagProblem = tagRejection(cleanTag);
  if (tagProblem || (cleanTag !== null && typeof cleanTag !== 'string')) return reject(tagProblem ?? REJECTIONS.tag);

  // Last, as the fields are listed: a rule's destination is held to the link's own rule, with its codes.
  const routing = validateRouting(body, (destination) => destinationUrlRejection(destination, service));
  if (!routing.ok) return reject(routing.rejection);

  const domain = linkDomainOf(body.domain, service.publicHostname);
  if (!domain.ok) return reject(rejectionOf(domain.error));

  return {
    ok: true,
    input: { destinationUrl: url, customSlug: slug, tag: cleanTag, routing: routing.routing, domain: domain.domain },
  };
}

const rejectionOf = (error: HttpError): Rejection => ({
  status: 400,
  error: error.message,
  code: error.code,
  ...error.explained,
});

/** What is wrong with a custom slug's format, whatever it holds, or null when it fits. */
function customSlugProblem(slug: unknown): string | null {
  if (typeof slug !== 'string') return `customSlug must be a string; received ${kindOf(slug)}.`;
  if (fits(customSlugField, slug)) return null;
  const length = Array.from(slug).length;
  if (length < 3 || length > 30) return `customSlug is ${length} characters (${excerpt(slug)}); expected 3-30.`;
  return `customSlug may hold only a-z, 0-9 and "-"; received ${excerpt(slug)}.`;
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/** What is wrong with the shape of a URL string, before it is parsed, or null. */
function urlShapeProblem(url: string): string | null {
  if (url.length > LIMITS.urlMaxLength) return `url is ${url.length} characters; at most ${LIMITS.urlMaxLength}.`;
  if (!NO_CONTROL.test(url)) return `url holds a control character: received ${excerpt(url)}.`;
  if (!TRIMMED.test(url)) return `url has white space before or after it: received ${excerpt(url)}.`;
  if (HTTP_SCHEME.test(url)) return null;
  const scheme = SCHEME.exec(url)?.[1];
  if (scheme === undefined || /^(?:localhost|www)$/i.test(scheme) || /^\d/.test(url.slice(scheme.length + 1))) {
    return `url has no scheme: expected it to start with http:// or https://; received ${excerpt(url)}.`;
  }
  if (!/^https?$/i.test(scheme)) return `url's scheme is ${excerpt(`${scheme}:`)}; expected http:// or https://.`;
  return `url must start with http:// or https://; received ${excerpt(url)}.`;
}

/**
 * The rules of a destination URL, for creation and change alike: what is
 * wrong with `url`, or null when it may be stored.
 */
export function destinationUrlRejection(url: unknown, service: ServiceAddresses): Rejection | null {
  const invalid = (detail: string) => explain(REJECTIONS.invalidBody, detail, 'url');
  if (url === undefined) return invalid('url is missing: expected an absolute http or https URL.');
  if (typeof url !== 'string')
    return invalid(`url must be a string holding an http or https URL; received ${kindOf(url)}.`);
  const shape = urlShapeProblem(url);
  // Its length first: a long URL is told so, whatever else is wrong with it.
  if (shape !== null) {
    return url.length > LIMITS.urlMaxLength ? explain(REJECTIONS.urlTooLong, shape, 'url') : invalid(shape);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return invalid(`url is not a valid URL: received ${excerpt(url)}.`);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    return invalid(`url has no host: received ${excerpt(url)}.`);
  }
  // A user name or password is not echoed: it may be a secret.
  if (parsed.username !== '' || parsed.password !== '') {
    return explain(REJECTIONS.urlCredentials, 'url holds a user name or password before its host.', 'url');
  }
  if (pointsAtThisService(parsed, service)) {
    return explain(REJECTIONS.urlSelf, `url's host ${excerpt(parsed.host)} is this service.`, 'url');
  }
  return null;
}

/** The rules of a tag (null: no tag), for creation and change alike. */
export function tagRejection(tag: unknown): Rejection | null {
  if (tag === null || fits(tagField, tag)) return null;
  const problem = (detail: string) => explain(REJECTIONS.tag, detail, 'tag');
  if (typeof tag !== 'string') return problem(`tag must be a string; received ${kindOf(tag)}.`);
  const length = Array.from(tag).length;
  if (length === 0) return problem(`tag is empty; expected 1-${LIMITS.tagMaxLength} characters.`);
  if (length > LIMITS.tagMaxLength) return problem(`tag is ${length} characters; at most ${LIMITS.tagMaxLength}.`);
  return problem(`tag holds a control character: received ${excerpt(tag)}.`);
}
