/** What one kind of API request of the traffic (creates, changes) got back in a phase. */
export interface ApiAnswers {
  sent: number;
  statuses: Record<string, number>;
  /** 503s that carried Retry-After, as docs/integrators.md promises during an outage. */
  unavailableWithRetryAfter: number;
  /** No answer at all, by what this client was told (failureReason). */
  failures: number;
  failureReasons: Record<string, number>;
  slowestMs: number;
  /** Answered after more than 5 s, or not at all within 10 s. */
  overFiveSeconds: number;
}

export const newApiAnswers = (): ApiAnswers => ({
  sent: 0,
  statuses: {},
  unavailableWithRetryAfter: 0,
  failures: 0,
  failureReasons: {},
  slowestMs: 0,
  overFiveSeconds: 0,
});

/** undici's code for a request that got no answer (UND_ERR_HEADERS_TIMEOUT, UND_ERR_SOCKET, ECONNRESET…). */
export function failureReason(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as Error & { code?: unknown }).code;
    return typeof code === 'string' ? code : err.name;
  }
  return 'unknown';
}

export function noteReason(reasons: Record<string, number>, err: unknown): void {
  const reason = failureReason(err);
  reasons[reason] = (reasons[reason] ?? 0) + 1;
}

/** Tallies one request's answer (its status and headers) or its failure (the error), and how long it took. */
export function noteAnswer(
  tally: ApiAnswers,
  startedAt: number,
  answer: { statusCode: number; headers: Record<string, unknown> } | { error: unknown },
): void {
  if ('error' in answer) {
    tally.failures++;
    noteReason(tally.failureReasons, answer.error);
  } else {
    tally.statuses[answer.statusCode] = (tally.statuses[answer.statusCode] ?? 0) + 1;
    if (answer.statusCode === 503 && answer.headers['retry-after'] !== undefined) tally.unavailableWithRetryAfter++;
  }
  const took = performance.now() - startedAt;
  tally.slowestMs = Math.max(tally.slowestMs, took);
  if (took > 5000) tally.overFiveSeconds++;
}
