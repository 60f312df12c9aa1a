import { randomUUID } from 'node:crypto';
import type { EventLogClient, RunningLogConsumer } from '@shortlink/kafka';
import type { Pool } from 'pg';
import type { KafkaNames } from '@shortlink/kafka';
import { createMetricsRegistry } from '@shortlink/metrics';
import { projectorMetrics } from '../projector-metrics';
import { linkEventHandler } from './link-handler';

export interface RebuildResult {
  applied: number;
  skipped: number;
}

/**
 * Empties the `links` and `link_previews` projections and replays the links topic into them from the
 * beginning, up to the end it had when the rebuild started. A live projector
 * may keep running: both apply events idempotently. Redirects keep working
 * meanwhile, because the redirector also reads the write model's committed
 * claims.
 */
export async function rebuildLinks(kafka: EventLogClient, pool: Pool, names: KafkaNames): Promise<RebuildResult> {
  const topic = names.topics.links;
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `${names.groups.linkProjector}.rebuild.${randomUUID()}`;
  let consumer: RunningLogConsumer | undefined;
  try {
    const ends = await admin.partitionOffsets(topic);
    const remaining = new Map(
      ends.filter((e) => BigInt(e.high) > BigInt(e.low)).map((e) => [e.partition, BigInt(e.high)]),
    );
    await pool.query('TRUNCATE links, link_previews');
    const result: RebuildResult = { applied: 0, skipped: 0 };
    if (remaining.size === 0) return result;

    // A one-off run that reports its result itself: its metrics go nowhere.
    const handle = linkEventHandler(pool, projectorMetrics(createMetricsRegistry({ processMetrics: false })));
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    consumer = await kafka.consume(
      { groupId, topics: [topic], fromBeginning: true },
      async ({ partition, records }, control) => {
        for (const message of records) {
          const end = remaining.get(partition);
          if (end === undefined || BigInt(message.offset) >= end) return;
          const outcome = await handle(message, { topic, partition, offset: message.offset });
          if (outcome.kind === 'ok') result.applied++;
          else result.skipped++;
          // Committed only so the batch is not fetched again; the group is deleted at the end.
          await control.commit((BigInt(message.offset) + 1n).toString());
          if (BigInt(message.offset) + 1n >= end) {
            remaining.delete(partition);
            if (remaining.size === 0) finish();
          }
        }
      },
    );
    await finished;
    return result;
  } finally {
    await consumer?.stop().catch(() => undefined);
    await admin.deleteGroup(groupId).catch(() => undefined);
    await admin.disconnect();
  }
}
