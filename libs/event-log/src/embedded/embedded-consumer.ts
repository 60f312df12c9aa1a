import type { KafkaLogger } from '../kafka/client';
import {
  DEFAULT_FETCH_MAX_WAIT_MS,
  type BatchHandler,
  type LogRecord,
  type RunningLogConsumer,
  type Subscription,
} from '../log-client';
import type { EventLog } from './event-log';
import type { GroupCoordinator } from './group-coordinator';
import type { StoredRecord } from './partition-log';

const DEFAULT_MAX_BYTES_PER_PARTITION = 1024 * 1024;
const RETRY_AFTER_ERROR_MS = 1000;
const RETRY_UNCOMMITTED_MS = 100;
const IDLE_WAIT_MS = 1000;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const toLogRecord = (record: StoredRecord): LogRecord => ({
  offset: record.offset.toString(),
  key: record.key,
  value: record.value,
  timestamp: String(record.timestamp),
  headers: record.headers,
});

/**
 * A consumer of the embedded log with Kafka's delivery contract: the group's
 * committed offsets are where it starts (`fromBeginning` where none is), a
 * batch is consecutive records of one partition, and a batch whose handler
 * throws or commits nothing is delivered again from the last commit. One
 * member holds a group at a time (see GroupCoordinator).
 */
export async function consumeEmbedded(
  log: EventLog,
  groups: GroupCoordinator,
  subscription: Subscription,
  eachBatch: BatchHandler,
  logger?: KafkaLogger,
): Promise<RunningLogConsumer> {
  const { groupId, topics, fromBeginning } = subscription;
  for (const topic of topics) log.partitions(topic); // unknown topics fail here, as they would on a broker
  let stopping = false;
  let wake: () => void = () => undefined;
  const onAppend = () => wake();

  async function consume(): Promise<void> {
    const leave = await groups.join(groupId, () => stopping);
    if (!leave) return;
    try {
      const positions = new Map<string, bigint>();
      const key = (topic: string, partition: number) => `${topic}/${partition}`;
      // Where the group left off; where it never committed, the start or the end.
      const committed = await log.committed(groupId);
      for (const topic of topics) {
        log.endOffsets(topic).forEach((end, partition) => {
          const at = committed[topic]?.[String(partition)];
          positions.set(key(topic, partition), at !== undefined ? BigInt(at) : fromBeginning ? 0n : end);
        });
      }
      const concurrency = Math.max(1, subscription.partitionsConcurrently ?? 1);
      const maxBytes = subscription.maxBytesPerPartition ?? DEFAULT_MAX_BYTES_PER_PARTITION;
      const minBytes = subscription.fetchMinBytes ?? 0;
      const maxWaitMs = subscription.fetchMaxWaitMs ?? DEFAULT_FETCH_MAX_WAIT_MS;
      /** When the records in hand first fell short of `minBytes`. */
      let waitingSince: number | null = null;

      const deliver = async (topic: string, partition: number) => {
        const k = key(topic, partition);
        const from = positions.get(k)!;
        const highWatermark = log.endOffsets(topic)[partition]?.toString();
        const records = await log.read(topic, partition, from, maxBytes);
        let committed: bigint | null = null;
        let advanced: bigint | null = null;
        /** Where the next batch starts: past what was committed or taken in hand, whichever is further. */
        const nextPosition = () =>
          committed === null ? (advanced ?? from) : advanced !== null && advanced > committed ? advanced : committed;
        try {
          await eachBatch(
            { topic, partition, records: records.map(toLogRecord), highWatermark },
            {
              async commit(nextOffset) {
                await log.commit(groupId, [{ topic, partition, offset: nextOffset }]);
                committed = BigInt(nextOffset);
              },
              advance(nextOffset) {
                advanced = BigInt(nextOffset);
              },
              heartbeat: async () => undefined,
              owned: () => !stopping,
            },
          );
          positions.set(k, nextPosition());
          // A handler that took nothing gets the same records again, after a breath rather than at once.
          if (committed === null && advanced === null) await delay(RETRY_UNCOMMITTED_MS);
        } catch (err) {
          if (stopping) return;
          // As Kafka's clients do after a failed handler: back to the committed offset, after a pause.
          positions.set(k, committed ?? from);
          logger?.error({ err, groupId, topic, partition }, 'handler failed; retrying from the committed offset');
          await delay(RETRY_AFTER_ERROR_MS);
        }
      };

      while (!stopping) {
        // Armed before looking, so an append that lands meanwhile is not missed.
        const appended = new Promise<void>((resolve) => (wake = resolve));
        const ready = topics.flatMap((topic) =>
          log
            .endOffsets(topic)
            .map((end, partition) => ({ topic, partition, end }))
            .filter(({ topic: t, partition, end }) => positions.get(key(t, partition))! < end),
        );
        if (ready.length === 0) {
          waitingSince = null;
          await Promise.race([appended, delay(IDLE_WAIT_MS)]);
          continue;
        }
        // Kafka's fetch.min.bytes and fetch.max.wait.ms: a consumer whose cost
        // is per batch (the click projector: a ledger claim, a ClickHouse
        // insert) waits a little for a fuller one rather than take each record.
        if (minBytes > 0) {
          const pending = ready.reduce(
            (sum, r) => sum + log.bytesFrom(r.topic, r.partition, positions.get(key(r.topic, r.partition))!),
            0,
          );
          waitingSince ??= Date.now();
          const waitLeft = waitingSince + maxWaitMs - Date.now();
          if (pending < minBytes && waitLeft > 0) {
            await Promise.race([appended, delay(waitLeft)]);
            continue;
          }
          waitingSince = null;
        }
        for (let i = 0; i < ready.length && !stopping; i += concurrency) {
          await Promise.all(ready.slice(i, i + concurrency).map(({ topic, partition }) => deliver(topic, partition)));
        }
      }
    } finally {
      leave();
    }
  }

  log.events.on('append', onAppend);
  const loop = consume().finally(() => log.events.off('append', onAppend));
  return {
    async stop() {
      stopping = true;
      wake();
      await loop;
    },
  };
}
