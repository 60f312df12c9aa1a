import { randomUUID } from 'node:crypto';
import type { EventLogClient } from '@shortlink/kafka';
import type { Pool } from 'pg';
import type { KafkaNames } from '@shortlink/kafka';
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
  const consumer = kafka.consumer({ groupId });
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    const remaining = new Map(
      ends.filter((e) => BigInt(e.high) > BigInt(e.low)).map((e) => [e.partition, BigInt(e.high)]),
    );
    await pool.query('TRUNCATE links, link_previews');
    const result: RebuildResult = { applied: 0, skipped: 0 };
    if (remaining.size === 0) return result;

    const handle = linkEventHandler(pool);
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const end = remaining.get(partition);
        if (end === undefined || BigInt(message.offset) >= end) return;
        const outcome = await handle(message, { topic, partition, offset: message.offset });
        if (outcome.kind === 'ok') result.applied++;
        else result.skipped++;
        if (BigInt(message.offset) + 1n >= end) {
          remaining.delete(partition);
          if (remaining.size === 0) finish();
        }
      },
    });
    await finished;
    return result;
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect();
  }
}
