import { groupCommit } from '@shortlink/batching';
import type { LinkCreated, LinkDeleted, LinkUpdated } from '@shortlink/events';
import { appendEvents, type LogProducer } from '@shortlink/event-log';

/** The events the write API appends to the links topic. */
export type LinkWriteEvent = LinkCreated | LinkUpdated | LinkDeleted;
/** Appends events in one produce request (as far as its size allows); each settles on its own. */
export type AppendLinkEvents = (events: readonly LinkWriteEvent[]) => Promise<void>[];
export type AppendLinkCreated = (events: readonly LinkCreated[]) => Promise<void>[];
/** One event: a link change, or the outbox relay's re-append. */
export type AppendLinkEvent = (event: LinkWriteEvent) => Promise<void>;

export const oneEvent =
  (append: AppendLinkEvents): AppendLinkEvent =>
  (event) =>
    append([event])[0]!;

/** Most events in one produce request. */
const MAX_BATCH = 500;

/**
 * Appends to the links topic, keyed by slug so a slug's events land in one partition, in order, and resolves once every
 * in-sync replica has them (`acks=all`): what a 201 promises. Concurrent appends share produce requests (a group
 * commit), since the producer sends one request at a time; a failed request fails every append in it, and each caller
 * settles its own claim (docs/decisions/0005-group-commits-on-the-write-path.md).
 */
export function kafkaLinkAppender(producer: LogProducer, topic: string, timeoutMs: number): AppendLinkEvents {
  const append = groupCommit(
    async (events: LinkWriteEvent[]) => {
      await appendEvents(producer, topic, events, (event) => event.data.slug, { timeoutMs });
      return events.map(() => undefined);
    },
    // A failed produce request may still have been written in part, so its
    // events are not sent again one by one (that could append one twice): each
    // caller's claim stays pending for the settler. Events are parsed before
    // they join, so none can fail the request for the others.
    { maxBatch: MAX_BATCH, onFailure: 'fail-all' },
  );
  // The client's own retries can outlast the broker's timeout (a broker killed
  // mid-request, then a new leader): a caller is answered within `timeoutMs`
  // whatever the request does; unconfirmed, its claim waits for the settler.
  return (events) => append.all(events).map((appended) => withinDeadline(appended, timeoutMs));
}

export class AppendNotConfirmedError extends Error {
  constructor(ms: number) {
    super(`the event log did not confirm the append within ${ms} ms`);
    this.name = 'AppendNotConfirmedError';
  }
}

function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppendNotConfirmedError(ms)), ms);
  });
  // A late failure of the work is the settler's to resolve, not an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
