import type { Pool } from 'pg';
import {
  eventLogProbe,
  runConsumer,
  type EventLogClient,
  type KafkaLogger,
  type KafkaNames,
  type LogProducer,
  type RunningConsumer,
} from '@shortlink/event-log';
import type { ServiceModule } from '@shortlink/http';
import type { MetricsRegistry } from '@shortlink/metrics';
import { postgresReachable } from '@shortlink/postgres';
import { createPublicNetwork, type PublicNetworkPolicy } from '@shortlink/public-network';
import { DEFAULT_CLICK_BATCHING, type ClickBatcherOptions } from './click-batcher';
import { createDeliverer, DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from './deliver';
import { enqueueDeliveries, purgeAttempts } from './delivery-queue';
import { createDispatcher, type Dispatcher } from './dispatcher';
import { dispatcherMetrics } from './dispatcher-metrics';
import { createEventIntake, type EventIntake } from './event-intake';
import { readReplay } from './read-replay';
import { createReplayRunner, type ReplayRunner } from './replay-runner';
import { createSigningSecrets, type Unseal } from './signing-secrets';
import { createSubscriptions } from './subscriptions';

export const SERVICE_NAME = 'webhook-dispatcher';

export interface WebhookDispatcherDeps {
  kafka: EventLogClient;
  names: KafkaNames;
  pool: Pool;
  newProducer: () => LogProducer;
  /** Turns a stored secret back into `whsec_…` (libs/webhooks' sealing). */
  unseal: Unseal;
  network: PublicNetworkPolicy;
  delivery: Pick<DeliveryPolicy, 'allowHttp' | 'userAgent'> & Partial<DeliveryPolicy>;
  concurrency: number;
  perEndpoint: number;
  /** The delay after each failed attempt, in ms (WEBHOOKS_RETRY_SCHEDULE). */
  retryDelaysMs: readonly number[];
  /** Records read ahead and not yet queued, at most. */
  recordsInHand?: number;
  batching?: ClickBatcherOptions;
  /** How long an account's endpoints and an endpoint's secrets are reused (default 5 s). */
  lookupTtlMs?: number;
  pollMs?: number;
  /** How often unfinished replays are looked for (default 5 s). */
  replayPollMs?: number;
  sessionTimeoutMs?: number;
  logger: KafkaLogger;
  metrics: MetricsRegistry;
  now?: () => Date;
  random?: () => number;
}

const HOUR_MS = 3_600_000;

/**
 * The dispatcher: its own consumer group on the link and click topics queues
 * each event for the account's subscribed endpoints (event-intake.ts), and
 * the delivery loop (dispatcher.ts) sends them from the durable queue;
 * replays asked through the API are read and queued (replay-runner.ts). The
 * endpoints are not its dependencies: their failures are outcomes.
 */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps): ServiceModule {
  const eventLog = eventLogProbe(deps.kafka, deps.names.topics.links);
  const metrics = dispatcherMetrics(deps.metrics);
  let producer: LogProducer | undefined;
  let consumer: RunningConsumer | undefined;
  let intake: EventIntake | undefined;
  let dispatcher: Dispatcher | undefined;
  let replays: ReplayRunner | undefined;
  let purgeTimer: NodeJS.Timeout | undefined;
  const ttlMs = deps.lookupTtlMs ?? 5000;

  async function purge(): Promise<void> {
    try {
      while ((await purgeAttempts(deps.pool)) > 0);
    } catch (err) {
      deps.logger.warn({ err }, 'purging old webhook attempts failed; trying again in an hour');
    }
  }

  return {
    name: SERVICE_NAME,
    dependencies: [
      { name: 'kafka', check: eventLog.check },
      { name: 'postgres', check: postgresReachable(deps.pool) },
    ],
    async start() {
      if (deps.network.allowPrivateNetworks) {
        deps.logger.warn({}, 'WEBHOOKS_ALLOW_PRIVATE_NETWORKS is on: webhooks may be sent to private addresses');
      }
      const started = createDispatcher({
        db: deps.pool,
        deliver: createDeliverer(
          { ...DEFAULT_DELIVERY_POLICY, ...deps.delivery },
          // Connections are kept between attempts to an endpoint: a new one for each costs more than the attempt.
          createPublicNetwork({ keepAlive: true, ...deps.network }),
          () => (deps.now ?? (() => new Date()))().getTime(),
        ),
        secretsOf: createSigningSecrets(deps.pool, deps.unseal, ttlMs),
        perEndpoint: deps.perEndpoint,
        concurrency: deps.concurrency,
        pollMs: deps.pollMs ?? 1000,
        leaseMs: 60_000,
        logger: deps.logger,
        metrics,
        now: deps.now,
        random: deps.random,
        retryDelaysMs: deps.retryDelaysMs,
      });
      dispatcher = started;
      started.start();
      intake = createEventIntake({
        linksTopic: deps.names.topics.links,
        clicksTopic: deps.names.topics.clicks,
        subscribers: createSubscriptions(deps.pool, { ttlMs, maxAccounts: 100_000 }),
        enqueue: (items) => enqueueDeliveries(deps.pool, items),
        queued: (added) => {
          metrics.enqueued(added);
          started.wake();
        },
        batching: deps.batching ?? DEFAULT_CLICK_BATCHING,
        logger: deps.logger,
      });
      const connected = deps.newProducer();
      producer = connected;
      await connected.connect();
      consumer = await runConsumer({
        kafka: deps.kafka,
        groupId: deps.names.groups.webhookDispatcher,
        topics: [deps.names.topics.links, deps.names.topics.clicks],
        take: intake.take,
        recordsInHand: deps.recordsInHand ?? 20_000,
        logger: deps.logger,
        metrics: deps.metrics,
        deadLetterProducer: connected,
        deadLetterTopic: deps.names.topics.deadLetter,
        sessionTimeoutMs: deps.sessionTimeoutMs,
      });
      replays = createReplayRunner({
        db: deps.pool,
        read: (replay, signal) =>
          readReplay(
            {
              kafka: deps.kafka,
              names: deps.names,
              db: deps.pool,
              queued: (added) => {
                metrics.enqueued(added);
                started.wake();
              },
            },
            replay,
            signal,
          ),
        pollMs: deps.replayPollMs ?? 5000,
        leaseMs: 60_000,
        logger: deps.logger,
      });
      replays.start();
      void purge();
      purgeTimer = setInterval(() => void purge(), HOUR_MS);
      purgeTimer.unref();
    },
    async stop() {
      clearInterval(purgeTimer);
      // The consumer knows it is stopping before the records not yet queued are given up: they stay uncommitted.
      const stopped = consumer?.stop();
      intake?.stop();
      await stopped;
      await replays?.stop();
      await dispatcher?.stop();
      await producer?.disconnect();
      await eventLog.close();
    },
  };
}
