import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeEvent, linkEvent, type LinkPreviewFailed, type LinkPreviewFetched } from '@shortlink/events';
import type { ServiceModule } from '@shortlink/http';
import type { MetricsRegistry } from '@shortlink/metrics';
import {
  appendEvents,
  eventLogProbe,
  OK,
  runConsumer,
  type EventLogClient,
  type KafkaLogger,
  type KafkaNames,
  type LogProducer,
  type MessageHandler,
  type RunningConsumer,
} from '@shortlink/kafka';
import { createPageFetcher, DEFAULT_FETCH_POLICY, type FetchPolicy, type PageFetcher } from './fetch/fetch-page';
import { previewEvent, previewTarget } from './preview/decide';
import { DEFAULT_RETRY_POLICY, fetchPreview, type RetryPolicy } from './preview/fetch-preview';
import { previewOutcomes } from './preview/preview-metrics';

export const SERVICE_NAME = 'preview-worker';

export type AppendPreview = (event: LinkPreviewFetched | LinkPreviewFailed) => Promise<void>;

export interface PreviewHandlerDeps {
  fetchPage: PageFetcher;
  append: AppendPreview;
  retry?: RetryPolicy;
  sleep?: (ms: number) => Promise<void>;
  /** Aborted on stop: a backoff between attempts ends at once, and the link is left for the next start. */
  signal?: AbortSignal;
  now?: () => Date;
  newId?: () => string;
  logger: KafkaLogger;
  /** The process's registry: outcomes by reason. */
  metrics: MetricsRegistry;
}

/**
 * For each `LinkCreated`, and each `LinkUpdated` that changed the destination:
 * fetch, read, append the outcome. Anything else on the
 * links topic (this worker's own outcomes among it) is dropped. Malformed
 * messages are dropped too, not parked: the link projector already parks them,
 * and one copy on the dead-letter topic is enough.
 */
export function previewHandler(deps: PreviewHandlerDeps): MessageHandler {
  const fetchDeps = {
    fetchPage: deps.fetchPage,
    retry: deps.retry ?? DEFAULT_RETRY_POLICY,
    sleep: deps.sleep ?? ((ms: number) => sleep(ms, undefined, { signal: deps.signal })),
  };
  const now = deps.now ?? (() => new Date());
  const newId = deps.newId ?? randomUUID;
  const recordOutcome = previewOutcomes(deps.metrics);
  return async (message) => {
    const decoded = decodeEvent(linkEvent, message.value);
    if (!decoded.ok) return { kind: 'drop', reason: `${decoded.reason}: ${decoded.detail}` };
    const link = previewTarget(decoded.event);
    if (!link) return { kind: 'drop', reason: `not for this worker: ${decoded.event.type}` };
    const outcome = await fetchPreview(link.destinationUrl, fetchDeps);
    if (outcome.kind === 'failed') {
      deps.logger.info({ slug: link.slug, reason: outcome.reason }, 'preview could not be fetched');
    }
    // An append that fails throws: the consumer retries the message, so no outcome is lost.
    await deps.append(previewEvent(link, outcome, { eventId: newId(), occurredAt: now().toISOString() }));
    recordOutcome(outcome);
    return OK;
  };
}

/** Appends to the links topic, keyed by slug: a preview lands after its LinkCreated, in order. */
export function kafkaPreviewAppender(producer: LogProducer, topic: string): AppendPreview {
  return (event) => appendEvents(producer, topic, [event], (e) => e.data.slug);
}

export interface PreviewWorkerDeps {
  kafka: EventLogClient;
  names: KafkaNames;
  newProducer: () => LogProducer;
  /** Everything but the fetch policy's defaults: who we are and whether private networks are allowed. */
  fetchPolicy: Pick<FetchPolicy, 'allowPrivateNetworks' | 'userAgent'> & Partial<FetchPolicy>;
  retry?: RetryPolicy;
  concurrency?: number;
  sessionTimeoutMs?: number;
  logger: KafkaLogger;
  /** The process's one registry. */
  metrics: MetricsRegistry;
}

/** The polite User-Agent: names the service and where to read about it. */
export function previewUserAgent(publicBaseUrl: string): string {
  return `ShortLinkPreview/1.0 (+${publicBaseUrl})`;
}

export function createPreviewWorker(deps: PreviewWorkerDeps): ServiceModule {
  let producer: LogProducer | undefined;
  let consumer: RunningConsumer | undefined;
  const stopping = new AbortController();
  const eventLog = eventLogProbe(deps.kafka, deps.names.topics.links);
  return {
    name: SERVICE_NAME,
    // The destinations it fetches are not its dependencies: their failures are outcomes.
    dependencies: [{ name: 'kafka', check: eventLog.check }],
    async start() {
      if (deps.fetchPolicy.allowPrivateNetworks) {
        deps.logger.warn({}, 'PREVIEW_ALLOW_PRIVATE_NETWORKS is on: previews may be fetched from private addresses');
      }
      producer = deps.newProducer();
      await producer.connect();
      consumer = await runConsumer({
        kafka: deps.kafka,
        groupId: deps.names.groups.previewWorker,
        topics: [deps.names.topics.links],
        handler: previewHandler({
          fetchPage: createPageFetcher({ ...DEFAULT_FETCH_POLICY, ...deps.fetchPolicy }),
          append: kafkaPreviewAppender(producer, deps.names.topics.links),
          retry: deps.retry,
          signal: stopping.signal,
          logger: deps.logger,
          metrics: deps.metrics,
        }),
        logger: deps.logger,
        metrics: deps.metrics,
        deadLetterProducer: producer,
        deadLetterTopic: deps.names.topics.deadLetter,
        sessionTimeoutMs: deps.sessionTimeoutMs,
        partitionsConcurrently: deps.concurrency,
      });
    },
    async stop() {
      // The consumer knows it is stopping before the backoffs end, so the links they were for stay uncommitted.
      const stopped = consumer?.stop();
      stopping.abort();
      await stopped;
      await producer?.disconnect();
      await eventLog.close();
    },
  };
}
