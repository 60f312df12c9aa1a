import { nextAttemptAt } from './retry-schedule';

/** An endpoint failing every attempt for this long is disabled ('failing'). */
export const FAILING_LIMIT_MS = 24 * 3_600_000;

/** What one attempt came to: the endpoint's status, or why there was none (timeout, refused…). */
export type AttemptResult =
  { kind: 'answered'; status: number; retryAfter?: string | undefined } | { kind: 'failed'; error: string };

/** What the decision needs of the message and its endpoint. */
export interface AttemptState {
  /** Attempts made before this one. */
  attempts: number;
  /** When the message was queued. */
  queuedAt: Date;
  /** The endpoint's first failure since its last success, if it is failing. */
  failingSince: Date | null;
}

/**
 * What follows an attempt. Each carries the endpoint's new `failingSince`:
 * null after a success, kept or started after a failure.
 */
export type AttemptOutcome =
  | { kind: 'delivered'; failingSince: null }
  | { kind: 'retry'; at: Date; failingSince: Date }
  /** The message's 24 hours are over: it leaves the queue, the endpoint stays enabled. */
  | { kind: 'give-up'; failingSince: Date }
  /** The endpoint is disabled; its other messages stay queued for a re-enable. */
  | { kind: 'disable'; reason: 'gone' | 'failing'; dropMessage: boolean; failingSince: Date | null };

export interface DecideInput {
  state: AttemptState;
  result: AttemptResult;
  now: Date;
  random: () => number;
  /** The retry schedule's delays; the standard one by default. */
  retryDelaysMs?: readonly number[];
}

/**
 * Decides what an attempt means: a 2xx is delivered; a 410 disables the
 * endpoint at once ('gone'); anything else (3xx, other 4xx, 5xx, timeout,
 * refused) is retried on the schedule, unless the endpoint has been failing
 * for 24 hours, which disables it ('failing'). Pure.
 */
export function decideAttemptOutcome({ state, result, now, random, retryDelaysMs }: DecideInput): AttemptOutcome {
  if (result.kind === 'answered' && result.status >= 200 && result.status <= 299) {
    return { kind: 'delivered', failingSince: null };
  }
  if (result.kind === 'answered' && result.status === 410) {
    // Kept in the queue: the 410 said nothing about this message, only about the endpoint.
    return { kind: 'disable', reason: 'gone', dropMessage: false, failingSince: state.failingSince };
  }
  const failingSince = state.failingSince ?? now;
  if (now.getTime() - failingSince.getTime() >= FAILING_LIMIT_MS) {
    return { kind: 'disable', reason: 'failing', dropMessage: true, failingSince };
  }
  const at = nextAttemptAt({
    delaysMs: retryDelaysMs,
    attempts: state.attempts + 1,
    queuedAt: state.queuedAt,
    now,
    retryAfter: result.kind === 'answered' ? result.retryAfter : undefined,
    random,
  });
  return at === null ? { kind: 'give-up', failingSince } : { kind: 'retry', at, failingSince };
}
