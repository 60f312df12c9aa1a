import { randomUUID } from 'node:crypto';
import { decodeEvent, linkEvent, type LinkPreviewFailed, type LinkPreviewFetched } from '@shortlink/events';
import type { ServiceModule } from '@shortlink/http';
import type { MetricsRegistry } from '@shortlink/metrics';
import {
  appendEvents,
  consumerMetrics,
  EVENT_HEADERS,
  eventLogProbe,
  isTransientFailure,
  runConsumer,
  HANDLED_LATER,
  type EventLogClient,
  type HeaderValue,
  type KafkaLogger,
  type KafkaNames,
  type LogProducer,
  type RecordInHand,
  type DeferredRecordHandler,
  type RunningConsumer,
} from '@shortlink/event-log';
import { createPageFetcher, DEFAULT_FETCH_POLICY, type FetchPolicy, type PageFetcher } from './fetch/fetch-page';
import { previewEvent, previewTarget, type PreviewTarget } from './preview/decide';
import { attemptPreview, DEFAULT_RETRY_POLICY, type PreviewOutcome, type RetryPolicy } from './preview/fetch-preview';
import { createOutcomeAppender } from './preview/outcome-appender';
import { previewOutcomes, previewSources } from './preview/preview-metrics';
import { createSharedPreviews, hostOf } from './preview/shared-previews';

export const SERVICE_NAME = 'preview-worker';

/**
 * A link created this recently is served ahead of the backlog, newest first.
 * Long enough to cover reading a large backlog at start-up (100,000 links
 * take about 15 s on 2 shared cores), since a link read after its
 * window joins the back of its host's line; short enough that a burst the
 * worker cannot keep up with turns into a backlog served oldest first.
 */
export const FRESH_MS = 60_000;

/**
 * A link waiting for its preview: what the worker keeps of its record (the
 * record itself, its buffers and the decoded event are let go at once, since
 * up to PREVIEW_MAX_PENDING links wait at a time), and its outcome once known.
 */
export interface PendingLink extends PreviewTarget {
  /** When the link was created (or changed): the record's time, in ms. */
  createdAt: number;
  inHand: RecordInHand;
  outcome: PreviewOutcome | undefined;
}

/**
 * For each `LinkCreated`, and each `LinkUpdated` that changed the destination:
 * keeps the link (see PendingLink) and asks for its destination's preview.
 * Anything else on the links topic (this worker's own outcomes among it) is
 * dropped. Malformed messages are dropped too, not parked: the link
 * projector already parks them, and one copy on the dead-letter topic is
 * enough.
 */
export function previewTaker(
  request: (link: PendingLink, accountId: string) => void,
  now: () => Date = () => new Date(),
): DeferredRecordHandler {
  return (message, _context, inHand) => {
    // Half the topic is this worker's own outcomes once it keeps up: known by their header, they are not parsed.
    const type = headerText(message.headers?.[EVENT_HEADERS.type]);
    if (type !== undefined && !PREVIEWED_TYPES.has(type))
      return { kind: 'drop', reason: `not for this worker: ${type}` };
    const decoded = decodeEvent(linkEvent, message.value);
    if (!decoded.ok) return { kind: 'drop', reason: `${decoded.reason}: ${decoded.detail}` };
    const target = previewTarget(decoded.event);
    if (!target) return { kind: 'drop', reason: `not for this worker: ${decoded.event.type}` };
    // Every field named, none spread: the links then share one hidden class, their fields inside the object.
    // The account is not kept with the link: its fetch's share needs it once, when the fetch is queued.
    request(
      {
        linkId: target.linkId,
        slug: target.slug,
        destinationUrl: target.destinationUrl,
        version: target.version,
        // The record's time is the link's creation (or change): what decides whether it is served fresh.
        createdAt: Number(message.timestamp) || now().getTime(),
        inHand,
        outcome: undefined,
      },
      target.accountId,
    );
    return HANDLED_LATER;
  };
}

/** The event types that may call for a fetch (see previewTarget); the others are dropped by their header. */
const PREVIEWED_TYPES = new Set(['LinkCreated', 'LinkUpdated']);

function headerText(value: HeaderValue): string | undefined {
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  return last === undefined ? undefined : last.toString();
}

/** Most preview events in one produce request. */
const MAX_APPEND_BATCH = 500;
/** A failure is reused for at most this long: a site that was down is asked again soon. */
const FAILURE_CACHE_MS = 60_000;
/** The destination cache's bound: about 50,000 typical previews. */
const CACHE_MAX_BYTES = 64 * 1024 * 1024;

export interface PreviewPipelineDeps {
  fetchPage: PageFetcher;
  retry: RetryPolicy;
  /** Fetches in flight in all, and to one host. */
  concurrency: number;
  perHostConcurrency: number;
  /** How long a destination's preview is reused for other links to it (0: never). */
  cacheMs: number;
  /** Appends preview events in one request (to the links topic, keyed by slug). */
  append: (events: (LinkPreviewFetched | LinkPreviewFailed)[]) => Promise<void>;
  logger: KafkaLogger;
  /** The process's registry: outcomes, sources, and failed appends as the consumer's retries. */
  metrics: MetricsRegistry;
  /** The consumer group and topic the retries are counted under. */
  group: string;
  topic: string;
  now?: () => Date;
  newId?: () => string;
}

export interface PreviewPipeline {
  /** The consumer's taker: each link it keeps waits for its preview, then its outcome's append. */
  take: DeferredRecordHandler;
  /** Gives up the links waiting for a fetch, and appends that fail from now on: they stay uncommitted. */
  stop(): void;
}

/**
 * A link's way through the worker: taken from its record, it waits for its
 * destination's fetch (shared-previews.ts: one fetch per destination, fresh
 * links first, a cap per host), then for its outcome's append
 * (outcome-appender.ts), and is handled then, so the consumer commits past
 * it. Each link is one small object all along, with no promise, closure or
 * timer of its own.
 */
export function previewPipeline(deps: PreviewPipelineDeps): PreviewPipeline {
  const now = deps.now ?? (() => new Date());
  const newId = deps.newId ?? randomUUID;
  const recordOutcome = previewOutcomes(deps.metrics);
  const retries = consumerMetrics(deps.metrics).retries;
  const appender = createOutcomeAppender<PendingLink, LinkPreviewFetched | LinkPreviewFailed>({
    eventOf: (link) => previewEvent(link, link.outcome!, { eventId: newId(), occurredAt: now().toISOString() }),
    append: deps.append,
    appended: (link) => {
      link.inHand.handled();
      recordOutcome(link.outcome!);
    },
    released: (link) => link.inHand.release(),
    createdAtOf: (link) => link.createdAt,
    failed: (err, attempt) => {
      const transient = isTransientFailure(err);
      retries.inc({
        group: deps.group,
        topic: deps.topic,
        reason: transient ? 'dependency_outage' : 'handler_error',
      });
      deps.logger.warn({ err, attempt, transient }, 'appending previews failed; retrying');
    },
    maxBatch: MAX_APPEND_BATCH,
  });
  const previews = createSharedPreviews<PendingLink>({
    cacheMs: deps.cacheMs,
    failureCacheMs: FAILURE_CACHE_MS,
    maxCacheBytes: CACHE_MAX_BYTES,
    concurrency: deps.concurrency,
    perHostConcurrency: deps.perHostConcurrency,
    freshMs: FRESH_MS,
    now: () => now().getTime(),
    attempt: async (url, attempt, enterHost) => {
      try {
        const result = await attemptPreview(url, attempt, deps.fetchPage, deps.retry, enterHost);
        if (result.kind === 'failed') {
          deps.logger.info({ host: hostOf(url), reason: result.reason }, 'preview could not be fetched');
        }
        return result;
      } catch (err) {
        deps.logger.error({ err, host: hostOf(url) }, 'preview failed on an unexpected error');
        throw err;
      }
    },
    deliver: (links, outcome) => {
      const at = now().getTime();
      for (const link of links) {
        link.outcome = outcome;
        appender.add(link, at - link.createdAt < FRESH_MS);
      }
    },
    abandon: (links) => {
      for (const link of links) link.inHand.release();
    },
    onPreview: previewSources(deps.metrics),
  });
  return {
    take: previewTaker(
      (link, accountId) => previews.request(link.destinationUrl, link.createdAt, link, accountId),
      now,
    ),
    stop() {
      appender.stop();
      previews.stop();
    },
  };
}

export interface PreviewWorkerDeps {
  kafka: EventLogClient;
  names: KafkaNames;
  newProducer: () => LogProducer;
  /** Everything but the fetch policy's defaults: who we are and whether private networks are allowed. */
  fetchPolicy: Pick<FetchPolicy, 'allowPrivateNetworks' | 'userAgent'> & Partial<FetchPolicy>;
  retry?: RetryPolicy;
  /** Fetches in flight in all, and to one host. */
  concurrency: number;
  perHostConcurrency: number;
  /** How long a destination's preview is reused for other links to it (0: never). */
  cacheMs: number;
  /** Links read ahead and waiting for their preview, at most. */
  maxPending: number;
  sessionTimeoutMs?: number;
  logger: KafkaLogger;
  /** The process's one registry. */
  metrics: MetricsRegistry;
}

/** The polite User-Agent: names the service and where to read about it. */
export function previewUserAgent(publicBaseUrl: string): string {
  return `ShortLinkPreview/1.0 (+${publicBaseUrl})`;
}

/**
 * The worker: reads the links topic far ahead of its fetches (up to
 * `maxPending` links in hand), fetches each destination once through the
 * fetch scheduler (fresh links first, a cap per host), and commits each
 * partition up to its first link whose outcome is not yet appended.
 */
export function createPreviewWorker(deps: PreviewWorkerDeps): ServiceModule {
  let producer: LogProducer | undefined;
  let consumer: RunningConsumer | undefined;
  let pipeline: PreviewPipeline | undefined;
  const eventLog = eventLogProbe(deps.kafka, deps.names.topics.links);
  const { links: topic } = deps.names.topics;
  const group = deps.names.groups.previewWorker;
  return {
    name: SERVICE_NAME,
    // The destinations it fetches are not its dependencies: their failures are outcomes.
    dependencies: [{ name: 'kafka', check: eventLog.check }],
    async start() {
      if (deps.fetchPolicy.allowPrivateNetworks) {
        deps.logger.warn({}, 'PREVIEW_ALLOW_PRIVATE_NETWORKS is on: previews may be fetched from private addresses');
      }
      const connected = deps.newProducer();
      producer = connected;
      await connected.connect();
      pipeline = previewPipeline({
        fetchPage: createPageFetcher({ ...DEFAULT_FETCH_POLICY, ...deps.fetchPolicy }),
        retry: deps.retry ?? DEFAULT_RETRY_POLICY,
        concurrency: deps.concurrency,
        perHostConcurrency: deps.perHostConcurrency,
        cacheMs: deps.cacheMs,
        // Keyed by slug: a preview lands after its LinkCreated, in order.
        append: (events) => appendEvents(connected, topic, events, (e) => e.data.slug),
        logger: deps.logger,
        metrics: deps.metrics,
        group,
        topic,
      });
      consumer = await runConsumer({
        kafka: deps.kafka,
        groupId: group,
        topics: [topic],
        take: pipeline.take,
        logger: deps.logger,
        metrics: deps.metrics,
        deadLetterProducer: connected,
        deadLetterTopic: deps.names.topics.deadLetter,
        sessionTimeoutMs: deps.sessionTimeoutMs,
        recordsInHand: deps.maxPending,
      });
    },
    async stop() {
      // The consumer knows it is stopping before the links waiting for a fetch give up, so they stay uncommitted.
      const stopped = consumer?.stop();
      pipeline?.stop();
      await stopped;
      await producer?.disconnect();
      await eventLog.close();
    },
  };
}
