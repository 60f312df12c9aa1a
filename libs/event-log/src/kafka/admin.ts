import type { Kafka } from 'kafkajs';
import type { EventLogClient, LogAdmin } from '../log-client';
import type { TopicSpec } from '../topics';

/**
 * Creates the topics that do not exist yet; existing ones are left as they
 * are. Replicated as the cluster's `default.replication.factor` says unless
 * told otherwise: three brokers with `min.insync.replicas=2` in a fleet, one
 * on a developer's machine.
 */
export async function ensureTopics(
  log: EventLogClient,
  specs: readonly TopicSpec[],
  replicationFactor?: number,
): Promise<string[]> {
  const admin = log.admin();
  await admin.connect();
  try {
    return await admin.createMissingTopics(specs, replicationFactor);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Waits until the cluster can really serve: metadata answers and the group and
 * transaction coordinators have loaded. A freshly started broker accepts TCP
 * connections well before its coordinators are ready, and an idempotent
 * producer needs the latter.
 */
export async function waitForKafka(kafka: Kafka, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const admin = kafka.admin();
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    try {
      await admin.connect();
      await admin.describeCluster();
      await admin.describeGroups(['shortlink.readiness-probe']);
      await producer.connect();
      return;
    } catch (e) {
      lastError = e;
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await producer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
    }
  }
  throw new Error(`Kafka not ready after ${timeoutMs} ms: ${String(lastError)}`);
}

/** Partition counts for a fresh cluster; production clusters size their own topics. */
export const DEFAULT_PARTITIONS = { links: 6, clicks: 12 } as const;

/**
 * Waits until a consumer group has committed everything a topic held when the
 * call began. An empty partition (high <= low) has nothing to consume and may
 * have no committed offset at all. False when the timeout passes first.
 */
export async function waitForGroupToCatchUp(
  admin: LogAdmin,
  groupId: string,
  topic: string,
  timeoutMs: number,
): Promise<boolean> {
  const ends = await admin.partitionOffsets(topic);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const committed = await admin.committedOffsets(groupId, topic);
    const done = new Map(committed.map((p) => [p.partition, BigInt(p.offset)]));
    const behind = ends.filter(
      (e) => BigInt(e.high) > BigInt(e.low) && BigInt(e.high) > (done.get(e.partition) ?? -1n),
    );
    if (behind.length === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}
