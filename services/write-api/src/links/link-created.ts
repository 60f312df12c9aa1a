import { encodeEvent, type LinkCreated } from '@shortlink/events';
import type { LogProducer } from '@shortlink/kafka';

export type AppendLinkCreated = (event: LinkCreated) => Promise<void>;

/** Most events in one produce request. */
const MAX_BATCH = 500;

/**
 * Appends to the links topic, keyed by slug so that every event of a slug lands
 * in one partition, in order. Resolves only once every in-sync replica has it
 * (`acks=all`): that is what a 201 promises.
 *
 * Concurrent appends share produce requests: while one request is in flight,
 * the events that arrive queue up and leave together in the next one (a group
 * commit, with no added delay when the producer is idle). The idempotent
 * producer sends one request at a time, so without this every create would
 * wait for all the ones before it, one broker round trip each. A request that
 * fails fails every append in it; each caller then settles its own claim.
 */
export function kafkaLinkAppender(producer: LogProducer, topic: string, timeoutMs: number): AppendLinkCreated {
  let waiting: { event: LinkCreated; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let sending = false;

  async function drain(): Promise<void> {
    sending = true;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, MAX_BATCH);
      waiting = waiting.slice(batch.length);
      try {
        await producer.send({
          topic,
          acks: -1,
          timeout: timeoutMs,
          messages: batch.map(({ event }) => ({
            key: event.data.slug,
            value: encodeEvent(event),
            headers: { 'event-type': event.type, 'event-id': event.eventId },
          })),
        });
        for (const { resolve } of batch) resolve();
      } catch (e) {
        for (const { reject } of batch) reject(e);
      }
    }
    sending = false;
  }

  return (event) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ event, resolve, reject });
      if (!sending) void drain();
    });
}
