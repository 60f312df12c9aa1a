import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { EventLogClient, KafkaNames, LogAdmin, RunningLogConsumer } from '@shortlink/event-log';
import { CHANNELS } from '@shortlink/postgres';
import { packFetch } from './decode-fetch';
import { startDecodeThread, type DecodeThread } from './decode-thread';
import { createReplacementTables, type ReplacementTables } from './replacement-tables';
import { writeFoldedPayload, type CreationLoad } from './write-folded-batch';
import { WriteLanes, WriteQueue } from './write-queue';

export interface RebuildResult {
  /** Events written into the projection. */
  applied: number;
  /** Records that are not link events (the live projector dead-letters them). */
  skipped: number;
}

export type RebuildPhase = 'loaded' | 'indexed' | 'swapped';

export interface RebuildOptions {
  /** Most bytes a fetch takes of one partition (default 8 MiB): a fetch is folded into one batch of writes. */
  maxBytesPerPartition?: number;
  /** Connections writing at once, each for its own share of the partitions (default 1: one kept up with the decoding on 2 cores). */
  writers?: number;
  /** How new rows travel (default `copy`; the embedded mode's socket needs `json`). */
  creationLoad?: CreationLoad;
  /** Indexes built at once after the load (default 2). */
  indexBuilders?: number;
  /**
   * Told when the topic as it was at the start is loaded, when the indexes are built (writes resume when it
   * returns), and once swapped in.
   */
  onPhase?: (phase: RebuildPhase) => Promise<void>;
}

/** Any one fixed number: two rebuilds of one database at once would share the replacement tables. */
const REBUILD_LOCK = 0x51eeb17d;
const SWAP_ATTEMPTS = 5;
/** How long the swap may hold the projection locked while it replays what was appended last. */
const SWAP_CATCH_UP_MS = 10_000;

/**
 * Rebuilds the `links` and `link_previews` projections from the links topic into new tables, then swaps them in in one
 * transaction, so readers see the old projection whole until the swap and the new one after. A live projector may keep
 * running: the rebuild replays the same events, the last ones under a lock on the old tables, so nothing it applied is
 * lost. Each fetch is folded per slug and written with the live statements' guards, so the result is what they would
 * hold (docs/decisions/0015-rebuild-into-new-tables.md).
 */
export async function rebuildLinks(
  kafka: EventLogClient,
  pool: Pool,
  names: KafkaNames,
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  const topic = names.topics.links;
  const load = options.creationLoad ?? 'copy';
  const holder = await pool.connect();
  const admin = kafka.admin();
  const groupId = `${names.groups.linkProjector}.rebuild.${randomUUID()}`;
  const writers: PoolClient[] = [];
  let consumer: RunningLogConsumer | undefined;
  let decoder: DecodeThread | undefined;
  let replacement: ReplacementTables | undefined;
  let locked = false;
  let swapped = false;
  try {
    const { rows } = await holder.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
      REBUILD_LOCK,
    ]);
    locked = rows[0]?.locked === true;
    if (!locked) throw new Error('another rebuild of this database is running');
    await admin.connect();
    replacement = await createReplacementTables(pool);
    const { tables } = replacement;
    const lanes: WriteQueue[] = [];
    for (let i = 0; i < Math.max(1, options.writers ?? 1); i++) {
      const client = await pool.connect();
      writers.push(client);
      lanes.push(new WriteQueue((payload) => writeFoldedPayload(client, tables, payload, load)));
    }
    const decoding = startDecodeThread();
    decoder = decoding;
    const queue = new WriteLanes(lanes);

    const initialEnds = await topicEnds(admin, topic);
    consumer = await kafka.consume(
      {
        groupId,
        topics: [topic],
        fromBeginning: true,
        maxBytesPerPartition: options.maxBytesPerPartition ?? 8 * 1024 * 1024,
        partitionsConcurrently: lanes.length,
        // An idle fetch returns soon: stopping the consumer after the swap waits for the fetch in flight.
        fetchMinBytes: 1,
        fetchMaxWaitMs: 100,
      },
      async ({ partition, records }, control) => {
        const last = records.at(-1);
        if (!last) return;
        const { payloads, skipped } = await decoding.decode(packFetch(partition, records, load));
        const next = BigInt(last.offset) + 1n;
        for (const [i, payload] of payloads.entries()) {
          const final = i === payloads.length - 1;
          await queue.push(
            { batch: payload, partition, ...(final ? { next, skipped } : { skipped: 0 }) },
            control.heartbeat,
          );
        }
        // Committed only so that the group does not fetch it again; the group is deleted at the end.
        await control.commit(next.toString());
      },
    );

    await queue.reached(initialEnds);
    await options.onPhase?.('loaded');
    await queue.pause();
    await replacement.buildIndexes(options.indexBuilders ?? 2);
    await options.onPhase?.('indexed');
    queue.resume();
    // What the live system appended meanwhile, before the lock: the swap then holds it only for what is left.
    await queue.reached(await topicEnds(admin, topic));

    for (let attempt = 1; !swapped; attempt++) {
      try {
        await replacement.swap(
          holder,
          async () => {
            await queue.reached(await topicEnds(admin, topic), SWAP_CATCH_UP_MS);
            await queue.close();
          },
          CHANNELS.linkCreated,
        );
        swapped = true;
      } catch (e) {
        // The lock not granted in time (a long reader), or the catch-up too slow: let readers through, try again.
        if (attempt >= SWAP_ATTEMPTS || !retriableSwapFailure(e)) throw e;
        await new Promise((r) => setTimeout(r, 1000 * attempt));
      }
    }
    await options.onPhase?.('swapped');
    return { applied: queue.applied, skipped: queue.skipped };
  } finally {
    await consumer?.stop().catch(() => undefined);
    await decoder?.close().catch(() => undefined);
    await admin.deleteGroup(groupId).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
    if (!swapped) await replacement?.drop().catch(() => undefined);
    if (locked) await holder.query('SELECT pg_advisory_unlock($1)', [REBUILD_LOCK]).catch(() => undefined);
    holder.release();
    for (const writer of writers) writer.release();
  }
}

/** The offset after the last record of each partition that holds any. */
async function topicEnds(admin: LogAdmin, topic: string): Promise<Map<number, bigint>> {
  const offsets = await admin.partitionOffsets(topic);
  return new Map(offsets.filter((o) => BigInt(o.high) > BigInt(o.low)).map((o) => [o.partition, BigInt(o.high)]));
}

function retriableSwapFailure(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === '55P03' || (e instanceof Error && e.message.startsWith('the rebuild did not catch up'));
}
