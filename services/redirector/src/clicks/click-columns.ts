import type { RawClick } from './raw-click';

/**
 * A batch of captured clicks as it crosses to the click worker: one array per field, not one object per click, since
 * `postMessage` copies an object's property names with every click at the redirect thread's cost (columns cost it about
 * a fifth). What repeats (links, user agents, addresses, referers) crosses once, as a dictionary of the batch's
 * distinct values and a 4-byte index a click: `postMessage` writes every string it meets, a fresh one several times
 * dearer than a repeated one (docs/decisions/0002-clicks-produced-on-a-worker-thread.md).
 */
export interface ClickColumns {
  sequence: Uint32Array;
  /** The batch's distinct links; `linkIndex[i]` is click i's. */
  links: { linkId: string[]; accountId: string[]; slug: string[] };
  linkIndex: Uint32Array;
  clickedAt: Float64Array;
  /** The batch's distinct client addresses; `ipIndex[i]` is click i's. */
  ips: string[];
  ipIndex: Uint32Array;
  /** The batch's distinct user agents; `userAgentIndex[i]` is click i's. */
  userAgents: string[];
  userAgentIndex: Uint32Array;
  /** The batch's distinct referers, `null` for a request without one; `refererIndex[i]` is click i's. */
  referers: (string | null)[];
  refererIndex: Uint32Array;
  /** 1 where the click was a QR code's scan. */
  scanned: Uint8Array;
  /** The rule (its position) and the variant that chose each click's destination; -1 where none did. */
  rule: Int8Array;
  variant: Int8Array;
}

/** Each distinct value once, in order of first use, and the index of each use. */
function dictionary<T>(size: number) {
  const values: T[] = [];
  const indexes = new Uint32Array(size);
  const known = new Map<T, number>();
  return {
    values,
    indexes,
    add(i: number, value: T): void {
      let index = known.get(value);
      if (index === undefined) {
        index = values.push(value) - 1;
        known.set(value, index);
      }
      indexes[i] = index;
    },
  };
}

export function toClickColumns(clicks: readonly RawClick[]): ClickColumns {
  const n = clicks.length;
  const sequence = new Uint32Array(n);
  const clickedAt = new Float64Array(n);
  const links = { linkId: [] as string[], accountId: [] as string[], slug: [] as string[] };
  const linkIndex = new Uint32Array(n);
  const linkOf = new Map<string, number>();
  const ips = dictionary<string>(n);
  const userAgents = dictionary<string>(n);
  const referers = dictionary<string | null>(n);
  const scanned = new Uint8Array(n);
  const rule = new Int8Array(n).fill(-1);
  const variant = new Int8Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const click = clicks[i]!;
    sequence[i] = click.sequence;
    clickedAt[i] = click.clickedAt;
    let link = linkOf.get(click.linkId);
    // A link id is one account's one slug; checked all the same, so no click is ever given another's.
    if (link === undefined || links.accountId[link] !== click.accountId || links.slug[link] !== click.slug) {
      link = links.linkId.push(click.linkId) - 1;
      links.accountId.push(click.accountId);
      links.slug.push(click.slug);
      linkOf.set(click.linkId, link);
    }
    linkIndex[i] = link;
    ips.add(i, click.ip);
    userAgents.add(i, click.userAgent);
    referers.add(i, click.referer ?? null);
    if (click.scanned) scanned[i] = 1;
    if (click.rule !== undefined) rule[i] = click.rule;
    if (click.variant !== undefined) variant[i] = click.variant;
  }
  return {
    sequence,
    links,
    linkIndex,
    clickedAt,
    ips: ips.values,
    ipIndex: ips.indexes,
    userAgents: userAgents.values,
    userAgentIndex: userAgents.indexes,
    referers: referers.values,
    refererIndex: referers.indexes,
    scanned,
    rule,
    variant,
  };
}
