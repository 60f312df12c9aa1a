import { z } from 'zod';
import { envelopeOf } from './envelope';
import { ROUTING_LIMITS, rulesField, variantsField, type LinkRouting } from './link-routing';
import { isStorableText, STORABLE_TEXT_PATTERN } from './storable-text';

/** Every slug, custom or generated: 3-30 of lowercase letters, digits and hyphens. */
export const SLUG_PATTERN = /^[a-z0-9-]{3,30}$/;

const slug = z.string().regex(SLUG_PATTERN);
/** Free text that Postgres and ClickHouse can hold as it is (no U+0000, no lone surrogate). */
const text = () =>
  z.string().refine(isStorableText, 'holds U+0000 or a lone surrogate').meta({ pattern: STORABLE_TEXT_PATTERN });

/** A short link came into existence. Keyed by slug on the links topic. */
const linkCreatedFields = {
  linkId: z.uuid(),
  accountId: z.uuid(),
  slug,
  destinationUrl: text().min(1),
  tag: text().nullable(),
};

/**
 * A branded domain's hostname as every store holds it: ASCII (IDN in punycode), lower case, no trailing dot, no port.
 * A link's slug is unique on its domain: its slug and domain together name it.
 */
const domain = z
  .string()
  .max(253)
  .regex(/^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/);

/**
 * The fields version 2 of `LinkCreated` and `LinkUpdated` adds: the link's routing, whole, and its domain. A link's
 * `rules` are `[]` and its `variants` null when it has none. `domain` null means the installation's own domain
 * (`PUBLIC_BASE_URL`); a hostname, one of the account's verified branded domains. A link never changes domain.
 */
const routedFields = {
  rules: rulesField,
  variants: variantsField,
  domain: domain.nullable(),
};

export const linkCreatedV1 = envelopeOf('LinkCreated', 1, z.object(linkCreatedFields));
export const linkCreatedV2 = envelopeOf('LinkCreated', 2, z.object({ ...linkCreatedFields, ...routedFields }));
/** Either version: a consumer accepts both (a v1 link has no routing and is on the installation's own domain). */
export const linkCreated = z.discriminatedUnion('schemaVersion', [linkCreatedV1, linkCreatedV2]);
export type LinkCreated = z.infer<typeof linkCreated>;

/** A link's number in its own history: 1 for its LinkCreated, one more for each change after it. */
const linkVersion = z.number().int().min(2);

/**
 * A link's destination, tag or routing changed (`PATCH /api/v1/links/:slug`).
 * Carries the link's whole new state and which fields changed. Keyed by slug
 * on the links topic; `version` orders a link's changes, so a consumer applies
 * one only when it is newer than what it holds (an event may be appended twice).
 */
const linkUpdatedFields = {
  linkId: z.uuid(),
  accountId: z.uuid(),
  slug,
  version: linkVersion,
  destinationUrl: text().min(1),
  tag: text().nullable(),
};

export const linkUpdatedV1 = envelopeOf(
  'LinkUpdated',
  1,
  z.object({ ...linkUpdatedFields, changedFields: z.array(z.enum(['destinationUrl', 'tag'])).min(1) }),
);
export const linkUpdatedV2 = envelopeOf(
  'LinkUpdated',
  2,
  z.object({
    ...linkUpdatedFields,
    ...routedFields,
    changedFields: z.array(z.enum(['destinationUrl', 'tag', 'rules', 'variants'])).min(1),
  }),
);
/** Either version: a consumer accepts both. */
export const linkUpdated = z.discriminatedUnion('schemaVersion', [linkUpdatedV1, linkUpdatedV2]);
export type LinkUpdated = z.infer<typeof linkUpdated>;
export type LinkChangedField = LinkUpdated['data']['changedFields'][number];

/** A link's routing as its `LinkCreated` or `LinkUpdated` carries it: none in a version 1 event. */
export function routingOf(data: LinkCreated['data'] | LinkUpdated['data']): LinkRouting {
  return 'rules' in data ? { rules: data.rules, variants: data.variants } : { rules: [], variants: null };
}

/** A link's domain as its event carries it: null (the installation's own) in a version 1 event. */
export function domainOf(data: LinkCreated['data'] | LinkUpdated['data'] | LinkDeleted['data']): string | null {
  return 'domain' in data ? (data.domain ?? null) : null;
}

/**
 * A link was deleted (`DELETE /api/v1/links/:slug`): it stops redirecting
 * and its slug is never given out again. Its clicks stay where they are.
 */
export const linkDeleted = envelopeOf(
  'LinkDeleted',
  1,
  z.object({
    linkId: z.uuid(),
    accountId: z.uuid(),
    slug,
    version: linkVersion,
    /** The link's branded domain. Optional, added after v1 was published: absent means the installation's own. */
    domain: domain.optional(),
  }),
);
export type LinkDeleted = z.infer<typeof linkDeleted>;

/** What started a click: a followed link, or a scan of its QR code. */
export const CLICK_TRIGGERS = ['link', 'qr'] as const;

/**
 * A human visit to a short link, already reduced at the edge: no raw IP and no
 * full referrer URL ever leave the redirector. Keyed by link id on the clicks topic.
 */
export const clickRecorded = envelopeOf(
  'ClickRecorded',
  1,
  z.object({
    linkId: z.uuid(),
    accountId: z.uuid(),
    slug,
    /** The link's branded domain. Optional, added after v1 was published: absent means the installation's own. */
    domain: domain.optional(),
    /** Milliseconds since the epoch, the instant the redirect was answered. */
    clickedAt: z.number().int().nonnegative(),
    /** Hex HMAC-SHA256 of the client IP under a server secret. */
    visitorHash: z.string().regex(/^[0-9a-f]{64}$/),
    /** URL origin of the referrer, or `Direct`. */
    referrer: z.string().min(1).max(512),
    /** ISO 3166-1 alpha-2, or `XX` when unknown. */
    country: z.string().regex(/^[A-Z]{2}$/),
    /** Raw user agent, parsed by the projector so a parser upgrade can re-process. */
    userAgent: z.string().max(1024),
    /**
     * What started the click: `qr` for a scan of the link's QR code (its short URL carried the `qr=1` marker).
     * Optional, added after v1 was published: absent means `link`, as every click before it.
     */
    trigger: z.enum(CLICK_TRIGGERS).optional(),
    /**
     * The position of the link's rule that chose the destination (docs/redirect-rules.md). Optional, added after v1
     * was published: absent when no rule held, as on every click before it.
     */
    rule: z
      .int()
      .min(0)
      .max(ROUTING_LIMITS.maxRules - 1)
      .optional(),
    /** The position of the link's variant the visit went to; absent when none did (a rule held, or the link has none). */
    variant: z
      .int()
      .min(0)
      .max(ROUTING_LIMITS.maxVariants - 1)
      .optional(),
  }),
);
export type ClickRecorded = z.infer<typeof clickRecorded>;
export type ClickTrigger = (typeof CLICK_TRIGGERS)[number];

/**
 * Which state of the link a preview outcome was fetched for. Optional (added
 * after v1 was published; absent means the link's creation): the destination
 * the worker fetched and that state's version.
 */
const previewedVersion = {
  linkVersion: z.number().int().min(1).optional(),
  destinationUrl: text().min(1).optional(),
};

/**
 * The destination's preview metadata, fetched after the link was created.
 * Appended to the links topic, keyed by slug, after that link's LinkCreated.
 */
export const linkPreviewFetched = envelopeOf(
  'LinkPreviewFetched',
  1,
  z.object({
    linkId: z.uuid(),
    slug,
    title: text().max(300).nullable(),
    description: text().max(1000).nullable(),
    image: text().max(2048).nullable(),
    /** The URL the page was finally read from, after redirects. */
    finalUrl: text().min(1).max(2048),
    ...previewedVersion,
  }),
);
export type LinkPreviewFetched = z.infer<typeof linkPreviewFetched>;

/** The preview could not be fetched, for good (after retries, or a refusal such as a private address). */
export const linkPreviewFailed = envelopeOf(
  'LinkPreviewFailed',
  1,
  z.object({
    linkId: z.uuid(),
    slug,
    reason: text().min(1).max(500),
    ...previewedVersion,
  }),
);
export type LinkPreviewFailed = z.infer<typeof linkPreviewFailed>;

export const linkEvent = z.discriminatedUnion('type', [
  linkCreated,
  linkUpdated,
  linkDeleted,
  linkPreviewFetched,
  linkPreviewFailed,
]);
export type LinkEvent = z.infer<typeof linkEvent>;

export const clickEvent = z.discriminatedUnion('type', [clickRecorded]);
export type ClickEvent = z.infer<typeof clickEvent>;

/**
 * Why a redirect was answered but not counted as a click (services/redirector countable-click.ts): `head` is any
 * request that is not a GET, `http_library` a client such as curl or python-requests, `crawler` any other bot.
 */
export const FILTER_REASONS = ['crawler', 'head', 'prefetch', 'no_user_agent', 'http_library'] as const;
export type FilterReason = (typeof FILTER_REASONS)[number];

/**
 * The crawler families told apart: a fixed list, because the user agent is visitor text and none of it is
 * stored. A crawler outside the list is `other`.
 */
export const CRAWLER_FAMILIES = [
  'googlebot',
  'bingbot',
  'slackbot',
  'facebookexternalhit',
  'twitterbot',
  'discordbot',
  'whatsapp',
  'telegrambot',
  'linkedinbot',
  'applebot',
  'yandexbot',
  'baiduspider',
  'duckduckbot',
  'pinterestbot',
  'skypeuripreview',
  'redditbot',
  'ai_crawler',
  'seo_crawler',
  'headless_browser',
  'other',
] as const;
export type CrawlerFamily = (typeof CRAWLER_FAMILIES)[number];

const utcDay = z.iso.date();

/**
 * Redirects answered but not counted, tallied by a redirector over a few seconds: per link, UTC day, reason and
 * (for crawlers) family, and the hits on slugs that are no link, per day. Nothing else of a request is kept. The
 * event id is the flush's: a redelivered event is stored once. Keyed by event id on the redirects-filtered topic.
 */
export const redirectsFiltered = envelopeOf(
  'RedirectsFiltered',
  1,
  z.object({
    counts: z
      .array(
        z
          .object({
            linkId: z.uuid(),
            accountId: z.uuid(),
            day: utcDay,
            reason: z.enum(FILTER_REASONS),
            /** Present exactly when the reason is `crawler`. */
            family: z.enum(CRAWLER_FAMILIES).optional(),
            count: z.number().int().min(1),
          })
          .refine((c) => (c.reason === 'crawler') === (c.family !== undefined), 'a family goes with a crawler, only'),
      )
      .max(1000),
    unknownSlugs: z.array(z.object({ day: utcDay, count: z.number().int().min(1) })).max(100),
  }),
);
export type RedirectsFiltered = z.infer<typeof redirectsFiltered>;
