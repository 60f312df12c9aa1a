import type { RawClick } from './raw-click';

/**
 * A batch of captured clicks as it crosses to the click worker: one array per
 * field rather than one object per click. `postMessage` copies an object's
 * property names with every click, and the redirect thread pays for that
 * copy; columns cost it about a fifth (docs/performance.md, "A cheaper click").
 * What repeats crosses once: user agents (one browser build is most of a
 * batch, and the longest field) and links (a popular link is most of its
 * traffic, and a link is three ids); each click carries their indexes.
 */
export interface ClickColumns {
  eventId: string[];
  /** The batch's distinct links; `linkIndex[i]` is click i's. */
  links: { linkId: string[]; accountId: string[]; slug: string[] };
  linkIndex: Uint32Array;
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
    links: { linkId: [], accountId: [], slug: [] },
    linkIndex: new Uint32Array(clicks.length),
    clickedAt: new Float64Array(clicks.length),
    ip: [],
    userAgents: [],
    userAgentIndex: new Uint32Array(clicks.length),
    referer: [],
  };
  const { links } = columns;
  const linkIndex = new Map<string, number>();
  const userAgentIndex = new Map<string, number>();
  clicks.forEach((click, i) => {
    columns.eventId.push(click.eventId);
    let link = linkIndex.get(click.linkId);
    // A link id is one account's one slug; checked all the same, so no click is ever given another's.
    if (link === undefined || links.accountId[link] !== click.accountId || links.slug[link] !== click.slug) {
      link = links.linkId.push(click.linkId) - 1;
      links.accountId.push(click.accountId);
      links.slug.push(click.slug);
      linkIndex.set(click.linkId, link);
    }
    columns.linkIndex[i] = link;
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
  const { links } = columns;
  return columns.eventId.map((eventId, i) => {
    const link = columns.linkIndex[i]!;
    return {
      eventId,
      linkId: links.linkId[link]!,
      accountId: links.accountId[link]!,
      slug: links.slug[link]!,
      clickedAt: columns.clickedAt[i]!,
      ip: columns.ip[i]!,
      userAgent: columns.userAgents[columns.userAgentIndex[i]!]!,
      referer: columns.referer[i] ?? undefined,
    };
  });
}
