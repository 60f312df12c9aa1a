import type { LogProducer } from '@shortlink/kafka';
import { encodeEvent, type LinkCreated } from '@shortlink/events';

export type AppendLinkCreated = (event: LinkCreated) => Promise<void>;

/**
 * Appends to the links topic, keyed by slug so that every event of a slug lands
 * in one partition, in order. Resolves only once every in-sync replica has it
 * (`acks=all`): that is what a 201 promises.
 */
export function kafkaLinkAppender(producer: LogProducer, topic: string, timeoutMs: number): AppendLinkCreated {
  return async (event) => {
    await producer.send({
      topic,
      acks: -1,
      timeout: timeoutMs,
      messages: [
        {
          key: event.data.slug,
          value: encodeEvent(event),
          headers: { 'event-type': event.type, 'event-id': event.eventId },
        },
      ],
    });
  };
}
