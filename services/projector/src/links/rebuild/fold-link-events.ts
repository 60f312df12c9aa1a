import { domainOf, linkKey, routingOf, storedRouting, type LinkEvent, type LinkRouting } from '@shortlink/events';

/** An event and where it sits in the topic. */
export interface PositionedEvent {
  event: LinkEvent;
  partition: number;
  offset: string;
}

/** A `links` row as the live projector writes it. */
export interface LinkRow {
  slug: string;
  linkId: string;
  accountId: string;
  destinationUrl: string;
  tag: string | null;
  createdAt: string;
  eventId: string;
  partition: number;
  offset: string;
  version: number;
  updatedAt: string | null;
  deletedAt: string | null;
  /** Its rules and variants; null when it has none. */
  routing: LinkRouting | null;
}

/**
 * What a run of one link's LinkUpdated / LinkDeleted does to a row there before the run, whatever its version `v`. The
 * live projector applies a change newer than the row, so the records that apply are those newer than `v`: a suffix of
 * the run. The last record sets version and source; destination and tag come from the last update record and
 * `deleted_at` from the last delete record, each only if newer than `v`.
 */
export interface ChangeRun {
  slug: string;
  linkId: string;
  version: number;
  occurredAt: string;
  eventId: string;
  partition: number;
  offset: string;
  /** The last update record: its version, destination and tag. */
  updateVersion: number | null;
  destinationUrl: string | null;
  tag: string | null;
  /** The last delete record: its version and instant. */
  deleteVersion: number | null;
  deletedAt: string | null;
  /** The last update record of version 2 (a version 1 update leaves the routing as it is): its version and routing. */
  routingVersion: number | null;
  routing: LinkRouting | null;
}

/** A `link_previews` row as the live projector writes it, the destination left to Postgres when the event has none. */
export interface PreviewRow {
  linkId: string;
  slug: string;
  status: 'ready' | 'failed';
  title: string | null;
  description: string | null;
  image: string | null;
  finalUrl: string | null;
  reason: string | null;
  occurredAt: string;
  eventId: string;
  linkVersion: number;
  /** Null for outcomes from before previews named it: the link's destination when the outcome is applied. */
  destinationUrl: string | null;
}

/**
 * A stretch of the topic folded into three set-based writes that leave the
 * projection as applying its events one by one would, in this order:
 * `changes` to rows that were already there, then `creations` of rows that
 * were not (a slug already there keeps its row), then `previews`.
 */
export interface FoldedBatch {
  changes: ChangeRun[];
  creations: LinkRow[];
  previews: PreviewRow[];
  /** How many events were folded in. */
  events: number;
}

interface SlugFold {
  /** The row the slug's first LinkCreated here makes if the slug had none, with the changes after it applied. */
  created?: LinkRow;
  runs: Map<string, ChangeRun>;
  /** A preview outcome without its destination waits for the link's row as it is now: a later link event must not be folded in before it. */
  previewReadsRow: boolean;
}

/**
 * Folds consecutive link events (in topic order per partition) into a
 * FoldedBatch. `add` refuses an event that cannot join the batch without
 * changing the outcome (a link event after a preview outcome that reads that
 * link's row): the caller writes the batch and starts a new one with it.
 */
export class LinkEventFold {
  private readonly slugs = new Map<string, SlugFold>();
  private readonly previews = new Map<string, PreviewRow>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add({ event, partition, offset }: PositionedEvent): boolean {
    if (event.type === 'LinkPreviewFetched' || event.type === 'LinkPreviewFailed') {
      this.addPreview(event);
      if (event.data.destinationUrl === undefined) this.slug(event.data.slug).previewReadsRow = true;
    } else {
      // Folded by key, as the rows are: one slug on two domains is two links.
      const key = linkKey(domainOf(event.data), event.data.slug);
      const slug = this.slugs.get(key);
      if (slug?.previewReadsRow) return false;
      const fold = slug ?? this.slug(key);
      if (event.type === 'LinkCreated') {
        const { linkId, accountId, destinationUrl, tag } = event.data;
        fold.created ??= {
          slug: key,
          linkId,
          accountId,
          destinationUrl,
          tag,
          createdAt: event.occurredAt,
          eventId: event.eventId,
          partition,
          offset,
          version: 1,
          updatedAt: null,
          deletedAt: null,
          routing: storedRouting(routingOf(event.data)),
        };
      } else {
        addChange(fold, event, partition, offset);
      }
    }
    this.count++;
    return true;
  }

  result(): FoldedBatch {
    const changes: ChangeRun[] = [];
    const creations: LinkRow[] = [];
    for (const fold of this.slugs.values()) {
      changes.push(...fold.runs.values());
      if (fold.created) creations.push(fold.created);
    }
    return { changes, creations, previews: [...this.previews.values()], events: this.count };
  }

  private slug(name: string): SlugFold {
    let fold = this.slugs.get(name);
    if (!fold) {
      fold = { runs: new Map(), previewReadsRow: false };
      this.slugs.set(name, fold);
    }
    return fold;
  }

  /** Only the newest outcome (link version, then instant; the first of equals) can stay, as the live upsert's guard decides. */
  private addPreview(event: Extract<LinkEvent, { type: 'LinkPreviewFetched' | 'LinkPreviewFailed' }>): void {
    const linkVersion = event.data.linkVersion ?? 1;
    const held = this.previews.get(event.data.linkId);
    if (held && !newer(linkVersion, event.occurredAt, held.linkVersion, held.occurredAt)) return;
    const ready = event.type === 'LinkPreviewFetched';
    this.previews.set(event.data.linkId, {
      linkId: event.data.linkId,
      slug: event.data.slug,
      status: ready ? 'ready' : 'failed',
      title: ready ? event.data.title : null,
      description: ready ? event.data.description : null,
      image: ready ? event.data.image : null,
      finalUrl: ready ? event.data.finalUrl : null,
      reason: ready ? null : event.data.reason,
      occurredAt: event.occurredAt,
      eventId: event.eventId,
      linkVersion,
      destinationUrl: event.data.destinationUrl ?? null,
    });
  }
}

/** `(version, occurredAt) > (heldVersion, heldAt)`; the instants share one fixed-width UTC format, so they compare as strings. */
function newer(version: number, at: string, heldVersion: number, heldAt: string): boolean {
  return version > heldVersion || (version === heldVersion && at > heldAt);
}

function addChange(
  fold: SlugFold,
  event: Extract<LinkEvent, { type: 'LinkUpdated' | 'LinkDeleted' }>,
  partition: number,
  offset: string,
): void {
  const { linkId, version } = event.data;
  const slug = linkKey(domainOf(event.data), event.data.slug);
  const update = event.type === 'LinkUpdated' ? event.data : null;
  // On the row this batch creates, exactly as the live UPDATE would.
  const row = fold.created;
  if (row && row.linkId === linkId && row.version < version) {
    if (update) {
      row.destinationUrl = update.destinationUrl;
      row.tag = update.tag;
      if ('rules' in update) row.routing = storedRouting(routingOf(update));
    } else {
      row.deletedAt = event.occurredAt;
    }
    row.updatedAt = event.occurredAt;
    row.version = version;
    row.eventId = event.eventId;
    row.partition = partition;
    row.offset = offset;
  }
  // On a row from before this batch: only a record (newer than the run so far) can ever apply.
  const run = fold.runs.get(linkId);
  if (run && version <= run.version) return;
  const next: ChangeRun = run ?? {
    slug,
    linkId,
    version,
    occurredAt: event.occurredAt,
    eventId: event.eventId,
    partition,
    offset,
    updateVersion: null,
    destinationUrl: null,
    tag: null,
    deleteVersion: null,
    deletedAt: null,
    routingVersion: null,
    routing: null,
  };
  next.version = version;
  next.occurredAt = event.occurredAt;
  next.eventId = event.eventId;
  next.partition = partition;
  next.offset = offset;
  if (update) {
    next.updateVersion = version;
    next.destinationUrl = update.destinationUrl;
    next.tag = update.tag;
    if ('rules' in update) {
      next.routingVersion = version;
      next.routing = storedRouting(routingOf(update));
    }
  } else {
    next.deleteVersion = version;
    next.deletedAt = event.occurredAt;
  }
  fold.runs.set(linkId, next);
}
