import type { Admin } from 'kafkajs';

/** Errors of a topic's metadata that only say "not yet": a new topic on its way to every broker. */
const NOT_YET = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

const typeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'type' in error && typeof error.type === 'string'
    ? error.type
    : undefined;

/** Whether a metadata error says the topic is not known to that broker yet, rather than that something failed. */
export function isTopicNotYetKnown(error: unknown): boolean {
  const type = typeOf(error);
  return type !== undefined && NOT_YET.has(type);
}

/**
 * Waits until every partition of `topics` has a leader, as the cluster's metadata says. kafkajs's `waitForLeaders` asks
 * one broker and waits only on LEADER_NOT_AVAILABLE, but in a KRaft cluster a broker may learn of a topic created a
 * moment ago only after it is asked and answer UNKNOWN_TOPIC_OR_PARTITION, which kafkajs throws although the topic
 * exists. Throws the last error once `timeoutMs` has passed.
 */
export async function waitForTopicLeaders(admin: Admin, topics: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let notYet: unknown = new Error(`topics without a leader after ${timeoutMs} ms: ${topics.join(', ')}`);
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics: [...topics] });
      if (found.length === topics.length && found.every((t) => t.partitions.every((p) => p.leader >= 0))) return;
    } catch (error) {
      if (!isTopicNotYetKnown(error)) throw error;
      notYet = error;
    }
    if (Date.now() >= deadline) throw notYet;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
