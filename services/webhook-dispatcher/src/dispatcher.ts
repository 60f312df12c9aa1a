import type { KafkaLogger } from '@shortlink/event-log';
import { decideAttemptOutcome, type AttemptOutcome, type AttemptResult } from './attempt-outcome';
import { REPLAY_HEADER, type Deliver, type DeliveryRequest, type DeliveryResult } from './deliver';
import {
  claimDueDeliveries,
  recordOutcomes,
  releaseDeliveries,
  type AttemptRecord,
  type ClaimedDelivery,
  type EndpointChange,
  type Outcomes,
  type Queryable,
} from './delivery-queue';
import type { DispatcherMetrics } from './dispatcher-metrics';
import { signMessage, type SignedHeaders } from './sign-message';

export interface DispatcherDeps {
  db: Queryable;
  deliver: Deliver;
  /** Each endpoint's signing secrets (`whsec_…`, newest first), unsealed. */
  secretsOf: (webhookIds: readonly string[]) => Promise<ReadonlyMap<string, readonly string[]>>;
  /** Attempts in flight to one endpoint, and in all. */
  perEndpoint: number;
  concurrency: number;
  /** How often the queue is asked when nothing wakes the dispatcher (retries falling due). */
  pollMs: number;
  /** How long a claimed message is kept from other dispatchers: more than an attempt and its recording. */
  leaseMs: number;
  logger: KafkaLogger;
  metrics: DispatcherMetrics;
  now?: () => Date;
  random?: () => number;
  /** The delay after each failed attempt (WEBHOOKS_RETRY_SCHEDULE). */
  retryDelaysMs?: readonly number[];
}

export interface Dispatcher {
  start(): void;
  /** Something was queued or finished: ask the queue now rather than at the next poll. */
  wake(): void;
  /** Claims no more, waits for the attempts under way (10 s at most each) and records them. */
  stop(): Promise<void>;
}

/** An attempt finished, waiting to be recorded with its round. */
interface Finished {
  delivery: ClaimedDelivery;
  result: DeliveryResult;
  outcome: AttemptOutcome;
  attemptedAt: Date;
}

/** Outcomes are written together: at most this many at once, or after this long. */
const ROUND_MAX = 500;
const ROUND_WAIT_MS = 10;
const BACKOFF_MAX_MS = 5000;

/**
 * The delivery loop: claims due messages (never more than `perEndpoint` in
 * flight for one endpoint, `concurrency` in all, so a slow or dead endpoint
 * holds only its own slots), sends each, decides what its answer means, and
 * records the outcomes in rounds of one statement. An endpoint's slot is
 * freed once its outcome is recorded, so the next of a link's events is
 * claimed only after the one before it left the queue.
 */
export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const now = deps.now ?? (() => new Date());
  const random = deps.random ?? Math.random;
  const inFlight = new Map<string, number>();
  let inFlightTotal = 0;
  let finished: Finished[] = [];
  let stopping = false;
  let woken: (() => void) | undefined;
  let wokenEarly = false;
  let loop: Promise<void> | undefined;
  let recording: Promise<void> | undefined;
  let recordTimer: NodeJS.Timeout | undefined;
  const attempts = new Set<Promise<void>>();

  function wake(): void {
    wokenEarly = true;
    woken?.();
  }

  function sleep(ms: number): Promise<void> {
    if (wokenEarly) {
      wokenEarly = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        woken = undefined;
        wokenEarly = false;
        resolve();
      }
      woken = done;
    });
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!stopping) {
      const free = deps.concurrency - inFlightTotal;
      let claimed: ClaimedDelivery[] = [];
      if (free > 0) {
        try {
          claimed = await claimDueDeliveries(deps.db, {
            perEndpoint: deps.perEndpoint,
            limit: free,
            inFlight,
            leaseMs: deps.leaseMs,
          });
          failures = 0;
        } catch (err) {
          failures++;
          deps.logger.warn({ err, failures }, 'claiming webhook deliveries failed; retrying');
          await sleep(Math.min(BACKOFF_MAX_MS, 100 * 2 ** failures));
          continue;
        }
        if (claimed.length > 0) await send(claimed);
      }
      // A full claim may have left more due: ask again at once, unless every slot is taken.
      if (claimed.length === 0 || claimed.length < free || inFlightTotal >= deps.concurrency) await sleep(deps.pollMs);
    }
  }

  async function send(claimed: ClaimedDelivery[]): Promise<void> {
    for (const delivery of claimed) {
      inFlight.set(delivery.webhookId, (inFlight.get(delivery.webhookId) ?? 0) + 1);
      inFlightTotal++;
    }
    deps.metrics.inFlight(inFlightTotal);
    let secrets: ReadonlyMap<string, readonly string[]>;
    try {
      secrets = await deps.secretsOf([...new Set(claimed.map((d) => d.webhookId))]);
    } catch (err) {
      deps.logger.warn({ err }, 'reading the signing secrets failed; the messages go back to the queue');
      await releaseDeliveries(
        deps.db,
        claimed.map((d) => d.deliveryId),
      ).catch(() => undefined);
      for (const delivery of claimed) freeSlot(delivery.webhookId);
      return;
    }
    for (const delivery of claimed) {
      const attempt = attemptOne(delivery, secrets.get(delivery.webhookId) ?? []);
      attempts.add(attempt);
      void attempt.finally(() => attempts.delete(attempt));
    }
  }

  async function attemptOne(delivery: ClaimedDelivery, secrets: readonly string[]): Promise<void> {
    const attemptedAt = now();
    const headers = signed(secrets, delivery, attemptedAt);
    const result: DeliveryResult =
      typeof headers === 'string'
        ? { kind: 'failed', error: headers, latencyMs: 0 }
        : await deps.deliver({ url: delivery.url, headers: withReplay(headers, delivery), payload: delivery.payload });
    const decidedAt = now();
    const outcome = decideAttemptOutcome({
      state: { attempts: delivery.attempts, queuedAt: delivery.queuedAt, failingSince: delivery.failingSince },
      result: attemptResult(result),
      now: decidedAt,
      random,
      retryDelaysMs: deps.retryDelaysMs,
    });
    deps.metrics.attempted(result, outcome, delivery.queuedAt, decidedAt);
    if (result.kind === 'answered' && outcome.kind !== 'delivered') {
      // The endpoint's words stay in the operator's log, as an escaped excerpt: never in the API's attempt log.
      deps.logger.info(
        { webhookId: delivery.webhookId, messageId: delivery.messageId, status: result.status, answer: result.answer },
        'webhook endpoint refused a delivery',
      );
    }
    finished.push({ delivery, result, outcome, attemptedAt });
    if (finished.length >= ROUND_MAX) void record();
    else recordTimer ??= setTimeout(() => void record(), ROUND_WAIT_MS);
  }

  /** Writes the finished attempts in one statement, retried until it lands; one round at a time. */
  function record(): Promise<void> {
    clearTimeout(recordTimer);
    recordTimer = undefined;
    recording ??= (async () => {
      for (let failures = 0; finished.length > 0;) {
        const round = finished.slice(0, ROUND_MAX);
        try {
          await recordOutcomes(deps.db, outcomesOf(round));
        } catch (err) {
          failures++;
          deps.logger.warn({ err, failures }, 'recording webhook attempts failed; retrying');
          await new Promise((r) => setTimeout(r, Math.min(BACKOFF_MAX_MS, 100 * 2 ** failures)));
          continue;
        }
        finished = finished.slice(round.length);
        for (const f of round) {
          if (f.outcome.kind === 'disable') deps.metrics.disabled(f.outcome.reason);
          freeSlot(f.delivery.webhookId);
        }
        wake();
      }
    })().finally(() => (recording = undefined));
    return recording;
  }

  function freeSlot(webhookId: string): void {
    const left = (inFlight.get(webhookId) ?? 1) - 1;
    if (left > 0) inFlight.set(webhookId, left);
    else inFlight.delete(webhookId);
    inFlightTotal--;
    deps.metrics.inFlight(inFlightTotal);
  }

  return {
    start() {
      loop ??= run();
    },
    wake,
    async stop() {
      stopping = true;
      woken?.();
      await loop;
      await Promise.allSettled([...attempts]);
      await record();
    },
  };
}

/** The attempt's headers, or why it cannot be signed (an attempt that fails like any other, never a throw). */
function signed(secrets: readonly string[], delivery: ClaimedDelivery, at: Date): SignedHeaders | string {
  if (secrets.length === 0) return 'no signing secret';
  try {
    return signMessage(secrets, delivery.messageId, delivery.payload, at);
  } catch {
    return 'bad signing secret';
  }
}

/** A replayed message says which replay it belongs to; a live one carries no such header. */
export function withReplay(headers: SignedHeaders, delivery: ClaimedDelivery): DeliveryRequest['headers'] {
  return delivery.replayId === null ? headers : { ...headers, [REPLAY_HEADER]: delivery.replayId };
}

function attemptResult(result: DeliveryResult): AttemptResult {
  return result.kind === 'answered'
    ? { kind: 'answered', status: result.status, retryAfter: result.retryAfter }
    : { kind: 'failed', error: result.error };
}

/**
 * A round's writes: what leaves the queue, what is tried again, the attempt
 * log, and each endpoint's state after its attempts in the order they ended
 * (a success clears its failing time; a failure starts it; any disabling
 * stands). Pure.
 */
export function outcomesOf(round: readonly Finished[]): Outcomes {
  const remove: string[] = [];
  const reschedule: { deliveryId: string; at: Date }[] = [];
  const attempts: AttemptRecord[] = [];
  const endpoints = new Map<string, EndpointChange>();
  for (const { delivery, result, outcome, attemptedAt } of round) {
    const { deliveryId, webhookId } = delivery;
    if (outcome.kind === 'retry') reschedule.push({ deliveryId, at: outcome.at });
    // A 410 says nothing of the message: it waits for the endpoint to be enabled again.
    else if (outcome.kind === 'disable' && !outcome.dropMessage) reschedule.push({ deliveryId, at: attemptedAt });
    else remove.push(deliveryId);
    attempts.push({
      webhookId,
      messageId: delivery.messageId,
      eventType: delivery.eventType,
      attempt: delivery.attempts + 1,
      replay: delivery.replay,
      attemptedAt,
      status: result.kind === 'answered' ? result.status : null,
      error: result.kind === 'failed' ? result.error : null,
      latencyMs: result.latencyMs,
    });
    const before = endpoints.get(webhookId);
    const disable = outcome.kind === 'disable' ? outcome.reason : (before?.disable ?? null);
    const failingSince = outcome.failingSince === null ? null : (before?.failingSince ?? outcome.failingSince);
    endpoints.set(webhookId, { webhookId, failingSince, disable });
  }
  return { remove, reschedule, attempts, endpoints: [...endpoints.values()] };
}
