import fc from 'fast-check';
import { routingOf, storedRouting, type LinkEvent, type LinkRouting } from '@shortlink/events';
import { LinkEventFold, type FoldedBatch, type LinkRow, type PositionedEvent } from './fold-link-events';

/**
 * The fold against the live projector, on in-memory models of their SQL:
 * `applyLive` is project-link.ts, project-link-change.ts and project-preview.ts
 * applied one event at a time; `applyFolded` is write-folded-batch.ts's three
 * statements. Whatever the stream and wherever the batches are cut, both must
 * leave the same rows. (test/link-rebuild.int.test.ts checks the real
 * statements on Postgres against the real projector.)
 */

interface PreviewState {
  linkId: string;
  status: 'ready' | 'failed';
  title: string | null;
  description: string | null;
  image: string | null;
  finalUrl: string | null;
  reason: string | null;
  occurredAt: string;
  eventId: string;
  linkVersion: number;
  destinationUrl: string | null;
}

interface Tables {
  links: Map<string, LinkRow>;
  previews: Map<string, PreviewState>;
}

const empty = (): Tables => ({ links: new Map(), previews: new Map() });
const older = (a: { linkVersion: number; occurredAt: string }, b: { linkVersion: number; occurredAt: string }) =>
  a.linkVersion < b.linkVersion || (a.linkVersion === b.linkVersion && a.occurredAt < b.occurredAt);

function applyLive(tables: Tables, { event, partition, offset }: PositionedEvent): void {
  switch (event.type) {
    case 'LinkCreated': {
      const { slug, linkId, accountId, destinationUrl, tag } = event.data;
      const clash = [...tables.links.values()].some((r) => r.linkId === linkId || r.eventId === event.eventId);
      if (tables.links.has(slug) || clash) return; // ON CONFLICT DO NOTHING
      tables.links.set(slug, {
        slug,
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
      });
      return;
    }
    case 'LinkUpdated':
    case 'LinkDeleted': {
      const row = tables.links.get(event.data.slug);
      if (!row || row.linkId !== event.data.linkId || row.version >= event.data.version) return;
      if (event.type === 'LinkUpdated') {
        row.destinationUrl = event.data.destinationUrl;
        row.tag = event.data.tag;
        // A version 1 update leaves the routing as it is.
        if (event.schemaVersion === 2) row.routing = storedRouting(routingOf(event.data));
      } else {
        row.deletedAt = event.occurredAt;
      }
      Object.assign(row, {
        updatedAt: event.occurredAt,
        version: event.data.version,
        eventId: event.eventId,
        partition,
        offset,
      });
      return;
    }
    case 'LinkPreviewFetched':
    case 'LinkPreviewFailed': {
      const ready = event.type === 'LinkPreviewFetched';
      const next: PreviewState = {
        linkId: event.data.linkId,
        status: ready ? 'ready' : 'failed',
        title: ready ? event.data.title : null,
        description: ready ? event.data.description : null,
        image: ready ? event.data.image : null,
        finalUrl: ready ? event.data.finalUrl : null,
        reason: ready ? null : event.data.reason,
        occurredAt: event.occurredAt,
        eventId: event.eventId,
        linkVersion: event.data.linkVersion ?? 1,
        // The live statement looks the link up by id.
        destinationUrl:
          event.data.destinationUrl ??
          [...tables.links.values()].find((r) => r.linkId === event.data.linkId)?.destinationUrl ??
          null,
      };
      const held = tables.previews.get(event.data.linkId);
      if (!held || older(held, next)) tables.previews.set(event.data.linkId, next);
    }
  }
}

function applyFolded(tables: Tables, batch: FoldedBatch): void {
  for (const run of batch.changes) {
    const row = tables.links.get(run.slug);
    if (!row || row.linkId !== run.linkId || row.version >= run.version) continue;
    const was = row.version;
    if (run.updateVersion !== null && run.updateVersion > was) {
      row.destinationUrl = run.destinationUrl as string;
      row.tag = run.tag;
    }
    if (run.routingVersion !== null && run.routingVersion > was) row.routing = run.routing;
    if (run.deleteVersion !== null && run.deleteVersion > was) row.deletedAt = run.deletedAt;
    Object.assign(row, {
      updatedAt: run.occurredAt,
      version: run.version,
      eventId: run.eventId,
      partition: run.partition,
      offset: run.offset,
    });
  }
  for (const created of batch.creations) {
    if (!tables.links.has(created.slug)) tables.links.set(created.slug, { ...created });
  }
  for (const preview of batch.previews) {
    const { slug, ...state } = preview;
    const row = tables.links.get(slug);
    const next: PreviewState = {
      ...state,
      destinationUrl: state.destinationUrl ?? (row?.linkId === state.linkId ? row.destinationUrl : null),
    };
    const held = tables.previews.get(state.linkId);
    if (!held || older(held, next)) tables.previews.set(state.linkId, next);
  }
}

/** Folds `events` in batches of the given sizes, starting a new batch wherever the fold refuses an event. */
function rebuild(events: PositionedEvent[], sizes: number[]): Tables {
  const tables = empty();
  let at = 0;
  for (let i = 0; at < events.length; i++) {
    const size = sizes.length > 0 ? (sizes[i % sizes.length] ?? 1) : events.length;
    let fold = new LinkEventFold();
    for (const positioned of events.slice(at, at + size)) {
      if (!fold.add(positioned)) {
        applyFolded(tables, fold.result());
        fold = new LinkEventFold();
        expect(fold.add(positioned)).toBe(true);
      }
    }
    applyFolded(tables, fold.result());
    at += size;
  }
  return tables;
}

function live(events: PositionedEvent[]): Tables {
  const tables = empty();
  for (const positioned of events) applyLive(tables, positioned);
  return tables;
}

const SLUGS = ['aaa', 'bbb', 'ccc'];
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;
/** Two possible links per slug (a second LinkCreated for a taken slug must change nothing). */
const linkOf = (slug: number, which: number) => uuid(1000 + slug * 2 + which);
const ACCOUNT = uuid(999);
const instant = (n: number) => `2026-01-01T00:00:0${n}.000Z`;

/** One event of a small world, so that slugs, versions and instants collide often. */
const eventShape = fc.record({
  kind: fc.constantFrom('create', 'update', 'delete', 'fetched', 'failed', 'again'),
  slug: fc.integer({ min: 0, max: SLUGS.length - 1 }),
  link: fc.constantFrom(0, 0, 0, 1),
  version: fc.integer({ min: 2, max: 5 }),
  previewVersion: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
  withDestination: fc.boolean(),
  at: fc.integer({ min: 0, max: 3 }),
  value: fc.integer({ min: 0, max: 2 }),
  again: fc.nat(),
  /** A version 2 create or update, with the routing `value` picks. */
  v2: fc.boolean(),
});

/** Three routings: none, one rule, variants. */
const routingFor = (value: number): LinkRouting =>
  value === 0
    ? { rules: [], variants: null }
    : value === 1
      ? { rules: [{ when: { device: ['mobile'] }, destinationUrl: 'https://example.com/m' }], variants: null }
      : {
          rules: [],
          variants: [
            { destinationUrl: 'https://example.com/a', weight: 40 },
            { destinationUrl: 'https://example.com/b', weight: 60 },
          ],
        };

type Shape = typeof eventShape extends fc.Arbitrary<infer T> ? T : never;

function streamOf(shapes: Shape[]): PositionedEvent[] {
  const events: PositionedEvent[] = [];
  const offsets = [0, 0];
  shapes.forEach((s, i) => {
    const slug = SLUGS[s.slug] as string;
    const linkId = linkOf(s.slug, s.link);
    const meta = { eventId: uuid(i), occurredAt: instant(s.at) };
    const destination = `https://example.com/${slug}/${s.value}`;
    let event: LinkEvent;
    switch (s.kind) {
      case 'again': {
        if (events.length === 0) return;
        event = (events[s.again % events.length] as PositionedEvent).event; // a redelivered copy
        break;
      }
      case 'create': {
        const data = {
          linkId,
          accountId: ACCOUNT,
          slug,
          destinationUrl: destination,
          tag: s.value === 0 ? null : `t${s.value}`,
        };
        event = s.v2
          ? { ...meta, type: 'LinkCreated', schemaVersion: 2, data: { ...data, ...routingFor(s.value), domain: null } }
          : { ...meta, type: 'LinkCreated', schemaVersion: 1, data };
        break;
      }
      case 'update': {
        const data = {
          linkId,
          accountId: ACCOUNT,
          slug,
          version: s.version,
          destinationUrl: `${destination}/v${s.version}`,
          tag: s.value === 1 ? null : `u${s.value}`,
        };
        event = s.v2
          ? {
              ...meta,
              type: 'LinkUpdated',
              schemaVersion: 2,
              data: { ...data, ...routingFor((s.value + 1) % 3), domain: null, changedFields: ['rules', 'variants'] },
            }
          : {
              ...meta,
              type: 'LinkUpdated',
              schemaVersion: 1,
              data: { ...data, changedFields: ['destinationUrl', 'tag'] },
            };
        break;
      }
      case 'delete':
        event = {
          ...meta,
          type: 'LinkDeleted',
          schemaVersion: 1,
          data: { linkId, accountId: ACCOUNT, slug, version: s.version },
        };
        break;
      default: {
        const which = s.withDestination
          ? { linkVersion: s.previewVersion ?? 1, destinationUrl: `${destination}/p` }
          : {};
        const base = {
          linkId,
          slug,
          ...(s.previewVersion === undefined ? {} : { linkVersion: s.previewVersion }),
          ...which,
        };
        event =
          s.kind === 'fetched'
            ? {
                ...meta,
                type: 'LinkPreviewFetched',
                schemaVersion: 1,
                data: { ...base, title: `title ${s.value}`, description: null, image: null, finalUrl: destination },
              }
            : { ...meta, type: 'LinkPreviewFailed', schemaVersion: 1, data: { ...base, reason: `reason ${s.value}` } };
      }
    }
    const partition = SLUGS.indexOf(event.data.slug) % 2;
    events.push({ event, partition, offset: String(offsets[partition]!++) });
  });
  return events;
}

const created = (slug: string, linkId: string, n: number): PositionedEvent => ({
  event: {
    eventId: uuid(n),
    occurredAt: instant(n % 10),
    type: 'LinkCreated',
    schemaVersion: 1,
    data: { linkId, accountId: ACCOUNT, slug, destinationUrl: `https://example.com/${n}`, tag: null },
  },
  partition: 0,
  offset: String(n),
});

describe('folding link events for a rebuild', () => {
  it('leaves what the live projector leaves, for any stream cut into any batches', () => {
    fc.assert(
      fc.property(
        fc.array(eventShape, { maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 5 }),
        (shapes, sizes) => {
          const events = streamOf(shapes);
          expect(rebuild(events, sizes)).toEqual(live(events));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps the first link of a slug and applies the changes after it, in one batch or many', () => {
    const events: PositionedEvent[] = [
      created('aaa', linkOf(0, 0), 1),
      created('aaa', linkOf(0, 1), 2),
      {
        event: {
          eventId: uuid(3),
          occurredAt: instant(3),
          type: 'LinkUpdated',
          schemaVersion: 1,
          data: {
            linkId: linkOf(0, 0),
            accountId: ACCOUNT,
            slug: 'aaa',
            version: 3,
            destinationUrl: 'https://example.com/v3',
            tag: 'x',
            changedFields: ['destinationUrl', 'tag'],
          },
        },
        partition: 0,
        offset: '3',
      },
      {
        event: {
          eventId: uuid(4),
          occurredAt: instant(4),
          type: 'LinkDeleted',
          schemaVersion: 1,
          data: { linkId: linkOf(0, 0), accountId: ACCOUNT, slug: 'aaa', version: 2 },
        },
        partition: 0,
        offset: '4',
      },
    ];
    const expected = live(events);
    expect(expected.links.get('aaa')).toMatchObject({ linkId: linkOf(0, 0), version: 3, deletedAt: null, tag: 'x' });
    expect(rebuild(events, [])).toEqual(expected);
    expect(rebuild(events, [1])).toEqual(expected);
  });

  it('starts a new batch at a link event after a preview that reads the link row', () => {
    const fold = new LinkEventFold();
    expect(fold.add(created('aaa', linkOf(0, 0), 1))).toBe(true);
    const preview: PositionedEvent = {
      event: {
        eventId: uuid(2),
        occurredAt: instant(2),
        type: 'LinkPreviewFailed',
        schemaVersion: 1,
        data: { linkId: linkOf(0, 0), slug: 'aaa', reason: 'timeout' },
      },
      partition: 0,
      offset: '2',
    };
    expect(fold.add(preview)).toBe(true);
    expect(fold.add(created('bbb', linkOf(1, 0), 3))).toBe(true);
    const update: PositionedEvent = {
      event: {
        eventId: uuid(4),
        occurredAt: instant(4),
        type: 'LinkUpdated',
        schemaVersion: 1,
        data: {
          linkId: linkOf(0, 0),
          accountId: ACCOUNT,
          slug: 'aaa',
          version: 2,
          destinationUrl: 'https://example.com/v2',
          tag: null,
          changedFields: ['destinationUrl'],
        },
      },
      partition: 0,
      offset: '4',
    };
    expect(fold.add(update)).toBe(false);
    const events = [created('aaa', linkOf(0, 0), 1), preview, update];
    expect(rebuild(events, [])).toEqual(live(events));
    expect(live(events).previews.get(linkOf(0, 0))?.destinationUrl).toBe('https://example.com/1');
  });
});
