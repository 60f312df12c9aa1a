import type { FastifyRequest } from 'fastify';
import type { LogProducer } from '@shortlink/kafka';
import { createEvent, encodeEvent, type ClickRecorded } from '@shortlink/events';
import type { ResolvedLink } from '../link-cache';
import { ClickQueue, type QueueLogger } from './click-queue';
import { isCountable, referrerOrigin, visitorHash, type CountryOf, type RawClick } from './enrich';

export interface ClickRecorderOptions {
  producer: LogProducer;
  topic: string;
  visitorSecret: string;
  countryOf: CountryOf;
  newId: () => string;
  now: () => number;
  logger: QueueLogger;
  capacity?: number;
}

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * Turns answered redirects into ClickRecorded events on the clicks topic. The
 * raw IP and the full referrer stay in this process: only the keyed visitor
 * hash, the country and the referrer's origin leave it.
 */
export function createClickRecorder(options: ClickRecorderOptions) {
  const queue = new ClickQueue<RawClick>({
    capacity: options.capacity ?? 200_000,
    maxBatch: 1000,
    flushIntervalMs: 50,
    logger: options.logger,
    toEvent: (raw) =>
      createEvent<ClickRecorded>(
        'ClickRecorded',
        1,
        {
          linkId: raw.linkId,
          accountId: raw.accountId,
          slug: raw.slug,
          clickedAt: raw.clickedAt,
          visitorHash: visitorHash(options.visitorSecret, raw.ip),
          referrer: referrerOrigin(raw.referer).slice(0, 512),
          country: options.countryOf(raw.ip),
          userAgent: raw.userAgent.slice(0, 1024),
        },
        { eventId: options.newId(), occurredAt: new Date(raw.clickedAt).toISOString() },
      ),
    send: async (events) => {
      await options.producer.send({
        topic: options.topic,
        acks: -1,
        messages: events.map((e) => ({ key: e.data.linkId, value: encodeEvent(e) })),
      });
    },
  });

  function onRedirect(request: FastifyRequest, link: ResolvedLink): void {
    const userAgent = header(request.headers['user-agent']);
    const countable = isCountable({
      method: request.method,
      userAgent,
      purpose: header(request.headers['purpose']),
      secPurpose: header(request.headers['sec-purpose']),
      xMoz: header(request.headers['x-moz']),
    });
    if (!countable) return;
    queue.push({
      linkId: link.linkId,
      accountId: link.accountId,
      slug: link.slug,
      clickedAt: options.now(),
      ip: request.ip,
      userAgent: userAgent ?? '',
      referer: header(request.headers.referer),
    });
  }

  return {
    onRedirect,
    queue,
    start: () => options.producer.connect(),
    async stop() {
      await queue.close(5000);
      await options.producer.disconnect();
    },
  };
}
