/**
 * When a failed delivery is tried again: the Standard Webhooks-style schedule,
 * each delay after the attempt it follows (the first attempt is immediate).
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000, // after the 1st attempt
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000, // after the 7th: past the horizon, so capped to it (the 8th and last attempt)
];

/** A message is tried for this long after it was queued, then given up. */
export const RETRY_HORIZON_MS = 24 * 3_600_000;
/** Each delay is moved by up to ±20 %, so endpoints that failed together are not retried together. */
export const JITTER = 0.2;
/** A `Retry-After` longer than this is honoured only up to it. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

export interface RetryInput {
  /** The delay after each attempt (the installation's WEBHOOKS_RETRY_SCHEDULE); RETRY_DELAYS_MS by default. */
  delaysMs?: readonly number[];
  /** Attempts made so far, the one that just failed included (1 after the first). */
  attempts: number;
  /** When the message was queued: the start of its 24 hours. */
  queuedAt: Date;
  now: Date;
  /** The endpoint's `Retry-After` header, if it sent one: seconds, or an HTTP date. */
  retryAfter?: string | undefined;
  /** A number in [0, 1): Math.random in production, fixed in tests. */
  random: () => number;
}

/**
 * When to try a failed message again, or `null` to give it up: the schedule's
 * next delay with jitter, lengthened to the endpoint's `Retry-After` (at most
 * 1 h), and never past 24 hours after the message was queued. Pure.
 */
export function nextAttemptAt(input: RetryInput): Date | null {
  const horizon = input.queuedAt.getTime() + RETRY_HORIZON_MS;
  const now = input.now.getTime();
  const scheduled = (input.delaysMs ?? RETRY_DELAYS_MS)[input.attempts - 1];
  if (scheduled === undefined || now >= horizon) return null;
  const jittered = scheduled * (1 - JITTER + 2 * JITTER * input.random());
  const asked = retryAfterMs(input.retryAfter, input.now);
  const delay = Math.max(jittered, Math.min(asked ?? 0, MAX_RETRY_AFTER_MS));
  return new Date(Math.min(now + Math.round(delay), horizon));
}

/** A `Retry-After` value as a delay from `now` in ms (never negative), or undefined when it is neither form. */
export function retryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // An HTTP date always names its day: anything shorter is not one (Date.parse reads too much).
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
