import type { KafkaLogger } from '../kafka/client';
import type { EventLogClient } from '../log-client';
import { embeddedAdmin } from './embedded-admin';
import { consumeEmbedded } from './embedded-consumer';
import { embeddedProducer } from './embedded-producer';
import type { EventLog } from './event-log';
import { GroupCoordinator } from './group-coordinator';

/**
 * The embedded log behind the services' event-log interface. Same
 * partitioner as Kafka's clients (murmur2 of the key), offsets committed per
 * consumer group, `fromBeginning` replay, at-least-once delivery: so the
 * projector's exactly-once scheme, the preview worker and `rebuild` behave as
 * they do on a broker.
 */
export function embeddedLogClient(log: EventLog, logger?: KafkaLogger): EventLogClient {
  const groups = new GroupCoordinator();
  return {
    producer: () => embeddedProducer(log),
    consume: (subscription, eachBatch) => consumeEmbedded(log, groups, subscription, eachBatch, logger),
    admin: () => embeddedAdmin(log, groups),
  };
}
