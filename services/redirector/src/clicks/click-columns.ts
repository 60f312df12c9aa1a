import type { RawClick } from './raw-click';

/**
 * A batch of captured clicks as it crosses to the click worker: one array per
 * field rather than one object per click. `postMessage` copies an object's
 * property names with every click, and the redirect thread pays for that
 * copy; columns cost it about a fifth (docs/performance.md, "A cheaper click").
 * User agents repeat (one browser build is most of a batch) and are the
 * longest field, and strings fresh from the HTTP parser are slow to copy:
 * each distinct one crosses once, and each click carries its index.
 */
export interface ClickColumns {
  eventId: string[];
  linkId: string[];
  accountId: string[];
  slug: string[];
  clickedAt: Float64Array;
  ip: string[];
  /** The batch's distinct user agents; `userAgentIndex[i]` is click i's. */
  userAgents: string[];
  userAgentIndex: Uint32Array;
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
    userAgents: [],
    userAgentIndex: new Uint32Array(clicks.length),
    referer: [],
  };
  const userAgentIndex = new Map<string, number>();
  clicks.forEach((click, i) => {
    columns.eventId.push(click.eventId);
    columns.linkId.push(click.linkId);
    columns.accountId.push(click.accountId);
    columns.slug.push(click.slug);
    columns.clickedAt[i] = click.clickedAt;
    columns.ip.push(click.ip);
    let agent = userAgentIndex.get(click.userAgent);
    if (agent === undefined) {
      agent = columns.userAgents.push(click.userAgent) - 1;
      userAgentIndex.set(click.userAgent, agent);
    }
    columns.userAgentIndex[i] = agent;
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
    userAgent: columns.userAgents[columns.userAgentIndex[i]!]!,
    referer: columns.referer[i] ?? undefined,
  }));
}
