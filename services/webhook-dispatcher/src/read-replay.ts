import { randomUUID } from 'node:crypto';
import type { EventLogClient, KafkaNames, LogRecord } from '@shortlink/event-log';
import type { Queryable } from './delivery-queue';
import { enqueueReplayDeliveries, type ClaimedReplay } from './replay-runs';
import { ReplayClicks, replayedLinkMessage, type ReplayWindow } from './replay-selection';
import type { WebhookMessage } from './webhook-message';

export interface ReadReplayDeps {
  kafka: EventLogClient;
  names: KafkaNames;
  db: Queryable;
  /** After each enqueue that added rows: the delivery loop is woken. */
  queued: (added: number) => void;
}

const ENQUEUE_MAX = 1000;

/**
 * Reads the topics a replay needs from the first record they hold up to their
 * ends as the replay started, with a consumer group of its own (deleted after,
 * so the dispatcher's group is untouched), and queues every event the window
 * takes for the replay's endpoint. Resolves with the rows queued; rejects when
 * `signal` aborts (stop, replay gone) or a write fails, leaving the rest to a
 * later run: what was queued is absorbed by the index per replay.
 */
export async function readReplay(deps: ReadReplayDeps, replay: ClaimedReplay, signal: AbortSignal): Promise<number> {
  const window: ReplayWindow = {
    accountId: replay.accountId,
    types: new Set(replay.events),
    sinceMs: replay.since.getTime(),
    untilMs: replay.until?.getTime() ?? null,
  };
  const { links, clicks } = deps.names.topics;
  const topics = [
    ...(replay.events.some((t) => t !== 'link.clicked') ? [links] : []),
    ...(window.types.has('link.clicked') ? [clicks] : []),
  ];
  const admin = deps.kafka.admin();
  const groupId = `${deps.names.groups.webhookDispatcher}.replay.${replay.replayId}.${randomUUID()}`;
  await admin.connect();
  let consumer: { stop(): Promise<void> } | undefined;
  const cleanups: (() => void)[] = [];
  try {
    const ends = new Map<string, bigint>();
    for (const topic of topics) {
      for (const o of await admin.partitionOffsets(topic)) {
        if (BigInt(o.high) > BigInt(o.low)) ends.set(`${topic}/${o.partition}`, BigInt(o.high));
      }
    }
    if (ends.size === 0 || topics.length === 0) return 0;
    const left = new Set(ends.keys());
    const clickParts = new Map<string, ReplayClicks>();
    let total = 0;
    let failed = false;
    let settle!: { resolve: () => void; reject: (err: unknown) => void };
    const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    // It may settle while the consumer is still joining, before it is awaited: never an unhandled rejection.
    done.catch(() => undefined);
    const onAbort = () => settle.reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => signal.removeEventListener('abort', onAbort));

    consumer = await deps.kafka.consume(
      { groupId, topics, fromBeginning: true, fetchMinBytes: 1, fetchMaxWaitMs: 100 },
      async ({ topic, partition, records }, control) => {
        const part = `${topic}/${partition}`;
        const end = ends.get(part);
        const last = records.at(-1);
        if (!last || failed || signal.aborted || end === undefined || !left.has(part)) return;
        const messages: WebhookMessage[] = [];
        for (const record of records) {
          if (BigInt(record.offset) >= end) break;
          messages.push(...messagesOf(topic === links, part, record));
        }
        const reached = BigInt(last.offset) + 1n >= end;
        if (reached) messages.push(...(clickParts.get(part)?.rest() ?? []));
        try {
          for (let i = 0; i < messages.length; i += ENQUEUE_MAX) {
            const added = await enqueueReplayDeliveries(deps.db, replay, messages.slice(i, i + ENQUEUE_MAX));
            total += added;
            if (added > 0) deps.queued(added);
          }
          // Committed only so that the group does not fetch it again; the group is deleted at the end.
          await control.commit((BigInt(last.offset) + 1n).toString());
        } catch (err) {
          // The clicks held per partition would be cut anew on a fetch again: the whole run is given up instead.
          failed = true;
          settle.reject(err);
          return;
        }
        if (reached) {
          left.delete(part);
          if (left.size === 0) settle.resolve();
        }
      },
    );

    function messagesOf(isLinks: boolean, part: string, record: LogRecord): WebhookMessage[] {
      if (isLinks) {
        const message = replayedLinkMessage(window, record);
        return message ? [message] : [];
      }
      let held = clickParts.get(part);
      if (!held) clickParts.set(part, (held = new ReplayClicks(window)));
      return held.add(record);
    }

    await done;
    return total;
  } finally {
    for (const cleanup of cleanups) cleanup();
    await consumer?.stop().catch(() => undefined);
    await admin.deleteGroup(groupId).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}
