import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  createEvent,
  encodeEvent,
  type LinkCreated,
  type LinkDeleted,
  type LinkEvent,
  type LinkPreviewFailed,
  type LinkPreviewFetched,
  type LinkUpdated,
} from '@shortlink/events';
import { round } from './measure';
import type { BenchStack } from './stack';

export interface RebuildResult {
  links: number;
  /** Every record on the topic: creations, changes, deletions, previews and redelivered copies. */
  events: number;
  producedPerSecond: number;
  /** Events on the topic over the wall time of `npm run rebuild`'s process, start to exit. */
  eventsPerSecond: number;
  seconds: number;
  /** When the rebuild had loaded the topic into its new tables, and built their indexes. */
  phases: { loadedAfterSeconds: number; indexedAfterSeconds: number };
  rows: { links: number; deleted: number; updated: number; previews: number };
  expected: { links: number; deleted: number; updated: number; previews: number };
}

const HOSTS = ['shop.example.com', 'blog.example.org', 'docs.example.net', 'news.example.com', 'www.example.co.uk'];
const TAGS = ['spring', 'summer', 'autumn', 'winter', null];
/** A link's later events come this many creations after its own, as on a live topic (and across fetch batches). */
const LAG = 5000;

interface LinkStream {
  records: { key: string; value: Buffer }[];
  expected: RebuildResult['expected'];
}

/**
 * `links` LinkCreated events with, per hundred links: 5 changes (one in two
 * then fetched again), 2 deletions, 12 preview outcomes (2 in the old shape
 * without the link's version), and redelivered copies: 1 in 200 creations
 * again, and 1 in 40 changes late, after the deletion that superseded it.
 * A link's follow-ups come `LAG` creations after it; `expected` is what the
 * projection must hold.
 */
export function linkEventStream(links: number): LinkStream {
  const records: { key: string; value: Buffer }[] = [];
  const accounts = Array.from({ length: 100 }, () => randomUUID());
  const start = Date.UTC(2026, 0, 1);
  const at = (i: number, step = 0) => new Date(start + i * 10 + step).toISOString();
  const emit = (event: LinkEvent) => {
    const value = encodeEvent(event);
    records.push({ key: event.data.slug, value });
    return value;
  };
  const meta = (i: number, step = 0) => ({ eventId: randomUUID(), occurredAt: at(i, step) });
  const created: { linkId: string; accountId: string; slug: string; destinationUrl: string; create: Buffer }[] = [];
  const expected = { links: links, deleted: 0, updated: 0, previews: 0 };

  const followUps = (j: number) => {
    const link = created[j]!;
    const { linkId, accountId, slug } = link;
    const later = j + LAG;
    if (j % 10 === 0 || j % 50 === 1) expected.previews++;
    if (j % 10 === 0) {
      emit(
        createEvent<LinkPreviewFetched>(
          'LinkPreviewFetched',
          1,
          {
            linkId,
            slug,
            title: `Page ${j}`,
            description: j % 20 === 0 ? null : `About page ${j}`,
            image: null,
            finalUrl: link.destinationUrl,
            linkVersion: 1,
            destinationUrl: link.destinationUrl,
          },
          meta(later, 1),
        ),
      );
    }
    if (j % 50 === 1) {
      emit(createEvent<LinkPreviewFailed>('LinkPreviewFailed', 1, { linkId, slug, reason: 'timeout' }, meta(later, 1)));
    }
    let version = 1;
    let lateCopy: Buffer | undefined;
    if (j % 20 === 0) {
      version = 2;
      expected.updated++;
      const destinationUrl = `${link.destinationUrl}&v=2`;
      const update = emit(
        createEvent<LinkUpdated>(
          'LinkUpdated',
          1,
          {
            linkId,
            accountId,
            slug,
            version,
            destinationUrl,
            tag: 'changed',
            changedFields: ['destinationUrl', 'tag'],
          },
          meta(later, 2),
        ),
      );
      if (j % 40 === 0) {
        lateCopy = update;
        emit(
          createEvent<LinkPreviewFetched>(
            'LinkPreviewFetched',
            1,
            {
              linkId,
              slug,
              title: `Page ${j} v2`,
              description: null,
              image: null,
              finalUrl: destinationUrl,
              linkVersion: 2,
              destinationUrl,
            },
            meta(later, 3),
          ),
        );
      }
    }
    if (j % 100 === 0 || j % 100 === 50) {
      expected.deleted++;
      emit(
        createEvent<LinkDeleted>('LinkDeleted', 1, { linkId, accountId, slug, version: version + 1 }, meta(later, 4)),
      );
    }
    if (lateCopy) records.push({ key: slug, value: lateCopy });
    if (j % 200 === 0) records.push({ key: slug, value: link.create });
  };

  for (let i = 0; i < links; i++) {
    const slug = `rb-${i.toString(36)}`;
    const linkId = randomUUID();
    const accountId = accounts[i % accounts.length]!;
    const destinationUrl = `https://${HOSTS[i % HOSTS.length]}/articles/${i}?utm_source=newsletter&utm_campaign=c${i % 97}`;
    const create = emit(
      createEvent<LinkCreated>(
        'LinkCreated',
        1,
        { linkId, accountId, slug, destinationUrl, tag: TAGS[i % TAGS.length] ?? null },
        meta(i),
      ),
    );
    created.push({ linkId, accountId, slug, destinationUrl, create });
    if (i >= LAG) followUps(i - LAG);
  }
  for (let j = Math.max(0, links - LAG); j < links; j++) followUps(j);
  return { records, expected };
}

/** Appends records in order, in requests that stay under the broker's 1 MiB per partition batch. */
async function produce(stack: BenchStack, records: LinkStream['records']): Promise<void> {
  const producer = stack.kafka.producer();
  await producer.connect();
  try {
    const chunk = 10_000;
    for (let from = 0; from < records.length; from += chunk) {
      await producer.append(stack.names.topics.links, records.slice(from, from + chunk));
    }
  } finally {
    await producer.disconnect();
  }
}

/**
 * `npm run rebuild` of a links topic holding `links` links and their changes,
 * deletions, previews and redelivered copies, into the Postgres projection:
 * its process's wall time, then what the projection holds against what it must.
 */
export async function benchRebuild(
  root: string,
  stack: BenchStack,
  options: { links: number },
): Promise<RebuildResult> {
  const { records, expected } = linkEventStream(options.links);
  const producing = performance.now();
  await produce(stack, records);
  const producedPerSecond = round(records.length / ((performance.now() - producing) / 1000));

  const started = performance.now();
  const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    execFile(
      process.execPath,
      [join(root, 'services/projector/dist/rebuild-cli.js')],
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...stack.env }, maxBuffer: 16 * 1024 * 1024 },
      (error, out, err) =>
        error ? reject(new Error(`rebuild failed: ${err || error.message}`)) : resolve({ stdout: out, stderr: err }),
    );
  });
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`[bench] ${stderr}${stdout}`);
  // The CLI's progress lines: "… after 12345 ms", loaded, indexed, swapped.
  const [loaded, indexed] = [...stderr.matchAll(/after (\d+) ms/g)].map((m) => round(Number(m[1]) / 1000));

  const { rows } = await stack.pool.query<RebuildResult['rows']>(
    `SELECT count(*)::int AS links,
            count(*) FILTER (WHERE deleted_at IS NOT NULL)::int AS deleted,
            count(*) FILTER (WHERE tag = 'changed' AND destination_url LIKE '%&v=2')::int AS updated,
            (SELECT count(*)::int FROM link_previews) AS previews
       FROM links`,
  );
  return {
    links: options.links,
    events: records.length,
    producedPerSecond,
    eventsPerSecond: round(records.length / seconds),
    seconds: round(seconds),
    phases: { loadedAfterSeconds: loaded ?? NaN, indexedAfterSeconds: indexed ?? NaN },
    rows: rows[0]!,
    expected,
  };
}
