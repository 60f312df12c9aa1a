import type { RawClick } from './raw-click';

/**
 * A batch of captured clicks as it crosses to the click worker: one array per
 * field rather than one object per click. `postMessage` copies an object's
 * property names with every click, and the redirect thread pays for that
 * copy; columns cost it about a fifth (docs/performance.md, "A cheaper click").
 */
export interface ClickColumns {
  eventId: string[];
  linkId: string[];
  accountId: string[];
  slug: string[];
  clickedAt: Float64Array;
  ip: string[];
  userAgent: string[];
  /** `null` where the request had no Referer. */
  referer: (string | null)[];
}

export function toClickColumns(clicks: readonly RawClick[]): ClickColumns {
  const columns: ClickColumns = {
    eventId: [],
    linkId: [],
    accountId: [],
    slug: [],
    clickedAt: new Float64Array(clicks.length),
    ip: [],
    userAgent: [],
    referer: [],
  };
  clicks.forEach((click, i) => {
    columns.eventId.push(click.eventId);
    columns.linkId.push(click.linkId);
    columns.accountId.push(click.accountId);
    columns.slug.push(click.slug);
    columns.clickedAt[i] = click.clickedAt;
    columns.ip.push(click.ip);
    columns.userAgent.push(click.userAgent);
    columns.referer.push(click.referer ?? null);
  });
  return columns;
}

export function fromClickColumns(columns: ClickColumns): RawClick[] {
  return columns.eventId.map((eventId, i) => ({
    eventId,
    linkId: columns.linkId[i]!,
    accountId: columns.accountId[i]!,
    slug: columns.slug[i]!,
    clickedAt: columns.clickedAt[i]!,
    ip: columns.ip[i]!,
    userAgent: columns.userAgent[i]!,
    referer: columns.referer[i] ?? undefined,
  }));
}
