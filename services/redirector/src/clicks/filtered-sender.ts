import { randomUUID } from 'node:crypto';
import { appendEvents, type LogProducer } from '@shortlink/event-log';
import { createEvent, isoUtcMillis, redirectsFiltered, type RedirectsFiltered } from '@shortlink/events';
import type { QueueLogger } from './click-queue';
import type { FilteredTally, TakenTally } from './filtered-tally';

/** How often the tally becomes events: a filtered redirect reaches the analytics within about this. */
export const FILTERED_FLUSH_INTERVAL_MS = 5_000;
/** Events held while the event log is away; beyond it the oldest are dropped (logged): they are counts, not clicks. */
export const FILTERED_EVENTS_HELD = 1_000;

const COUNTS_PER_EVENT = 1000;
const DAYS_PER_EVENT = 100;

export interface FilteredSenderOptions {
  tally: FilteredTally;
  producer: LogProducer;
  topic: string;
  logger: QueueLogger;
  intervalMs?: number;
  now?: () => number;
  newId?: () => string;
}

export interface FilteredSender {
  /** Sends what was tallied so far; resolves once the event log has it (or the send failed: it is kept). */
  flush(): Promise<void>;
  start(): Promise<void>;
  stop(timeoutMs: number): Promise<void>;
  /** Events built but not yet acknowledged. */
  readonly pending: number;
}

/** A taken tally as events of at most COUNTS_PER_EVENT counts, each with an id of its own, parsed as any event is. */
export function filteredEvents(taken: TakenTally, at: number, newId: () => string): RedirectsFiltered[] {
  const events: RedirectsFiltered[] = [];
  const parts = Math.max(
    Math.ceil(taken.counts.length / COUNTS_PER_EVENT),
    Math.ceil(taken.unknownSlugs.length / DAYS_PER_EVENT),
  );
  for (let i = 0; i < parts; i++) {
    const data = {
      counts: taken.counts.slice(i * COUNTS_PER_EVENT, (i + 1) * COUNTS_PER_EVENT),
      unknownSlugs: taken.unknownSlugs.slice(i * DAYS_PER_EVENT, (i + 1) * DAYS_PER_EVENT),
    };
    const occurredAt = isoUtcMillis.parse(new Date(at).toISOString());
    const event = createEvent<RedirectsFiltered>('RedirectsFiltered', 1, data, { eventId: newId(), occurredAt });
    events.push(redirectsFiltered.parse(event));
  }
  return events;
}

/**
 * Every few seconds, the tally's counts as RedirectsFiltered events on their topic, off the redirect path. An event
 * keeps its id until the event log acknowledges it and is sent again as it is, so a consumer stores it once
 * (the ClickHouse table keeps one row per event id and key).
 */
export function filteredSender(options: FilteredSenderOptions): FilteredSender {
  const { tally, producer, topic, logger } = options;
  const now = options.now ?? Date.now;
  const newId = options.newId ?? randomUUID;
  let held: RedirectsFiltered[] = [];
  let sending: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function sendHeld(): Promise<void> {
    if (!tally.isEmpty) held.push(...filteredEvents(tally.take(), now(), newId));
    if (held.length > FILTERED_EVENTS_HELD) {
      const dropped = held.length - FILTERED_EVENTS_HELD;
      held = held.slice(dropped);
      logger.error({ dropped }, 'filtered redirect counts dropped: the event log has been away too long');
    }
    if (held.length === 0) return;
    const batch = held;
    try {
      await appendEvents(producer, topic, batch, (event) => event.eventId);
      held = held.filter((event) => !batch.includes(event));
    } catch (err) {
      logger.warn({ err, events: batch.length }, 'filtered redirect counts not sent; kept for the next flush');
    }
  }

  function flush(): Promise<void> {
    // One send at a time; a flush during one waits for it, then sends what came since.
    const next = (sending ?? Promise.resolve()).then(sendHeld);
    sending = next;
    return next.finally(() => {
      if (sending === next) sending = undefined;
    });
  }

  return {
    flush,
    get pending() {
      return held.length;
    },
    async start() {
      await producer.connect();
      timer = setInterval(() => void flush(), options.intervalMs ?? FILTERED_FLUSH_INTERVAL_MS);
      timer.unref();
    },
    async stop(timeoutMs) {
      clearInterval(timer);
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([flush(), new Promise((r) => (waited = setTimeout(r, timeoutMs)))]);
      clearTimeout(waited);
      await producer.disconnect().catch(() => undefined);
    },
  };
}
