import { counter, gauge, type MetricsRegistry } from '@shortlink/metrics';

/**
 * What every consumer of the process reports, by consumer group and topic:
 * the outcome of each message, retries and why, dead letters and why, and
 * lag per partition.
 */
export function consumerMetrics(registry: MetricsRegistry) {
  return {
    messages: counter(registry, {
      name: 'shortlink_consumer_messages_total',
      help: 'Messages a consumer finished with, by outcome: ok, drop (of no use to it) or dead_letter.',
      labelNames: ['group', 'topic', 'outcome'] as const,
    }),
    retries: counter(registry, {
      name: 'shortlink_consumer_retries_total',
      help: 'Failed attempts retried with backoff, by reason: dependency_outage (a store or the broker away) or handler_error.',
      labelNames: ['group', 'topic', 'reason'] as const,
    }),
    deadLetters: counter(registry, {
      name: 'shortlink_dead_letters_total',
      help: 'Messages parked on the dead-letter topic, by reason (invalid_json, invalid_event, handler_error, ...).',
      labelNames: ['group', 'topic', 'reason'] as const,
    }),
    lag: gauge(registry, {
      name: 'shortlink_consumer_lag',
      help: "Messages of a partition not yet processed by the group: the partition's high watermark when last fetched minus the next offset to process.",
      labelNames: ['group', 'topic', 'partition'] as const,
    }),
  };
}

export type ConsumerMetricSet = ReturnType<typeof consumerMetrics>;

/**
 * The label of a dead letter's reason: its leading word (`invalid-event: data.slug: ...`
 * is `invalid_event`), so the free text stays in the record's header and the
 * metric keeps a handful of series.
 */
export function deadLetterReasonLabel(reason: string): string {
  const word = /^[A-Za-z][A-Za-z0-9_-]{0,39}/.exec(reason)?.[0];
  return word === undefined ? 'other' : word.toLowerCase().replace(/-/g, '_');
}

/** Sets a partition's lag from the high watermark of the batch in hand and the next offset to process. */
export function setLag(
  metrics: ConsumerMetricSet,
  labels: { group: string; topic: string; partition: number },
  highWatermark: string | undefined,
  nextOffset: bigint,
): void {
  if (highWatermark === undefined) return;
  const behind = BigInt(highWatermark) - nextOffset;
  metrics.lag.set(
    { group: labels.group, topic: labels.topic, partition: String(labels.partition) },
    Number(behind > 0n ? behind : 0n),
  );
}
