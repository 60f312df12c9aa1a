import { decideAttemptOutcome, FAILING_LIMIT_MS, type AttemptResult, type AttemptState } from './attempt-outcome';

const queuedAt = new Date('2026-12-01T00:00:00.000Z');
const at = (ms: number) => new Date(queuedAt.getTime() + ms);
const H = 3_600_000;
const fresh: AttemptState = { attempts: 0, queuedAt, failingSince: null };

const decide = (state: AttemptState, result: AttemptResult, now = at(0)) =>
  decideAttemptOutcome({ state, result, now, random: () => 0.5 });

describe('attempt outcome', () => {
  it.each([200, 201, 204, 299])('given a %i, the message is delivered and the endpoint no longer failing', (status) => {
    const failing = { ...fresh, failingSince: at(-H) };
    expect(decide(failing, { kind: 'answered', status })).toEqual({ kind: 'delivered', failingSince: null });
  });

  it('given a 410, disables the endpoint at once, keeping the message', () => {
    expect(decide(fresh, { kind: 'answered', status: 410 })).toEqual({
      kind: 'disable',
      reason: 'gone',
      dropMessage: false,
      failingSince: null,
    });
  });

  it.each<AttemptResult>([
    { kind: 'answered', status: 500 },
    { kind: 'answered', status: 404 },
    { kind: 'answered', status: 429 },
    { kind: 'answered', status: 302 },
    { kind: 'answered', status: 100 },
    { kind: 'failed', error: 'timeout' },
    { kind: 'failed', error: 'connection refused' },
  ])('given %j on a healthy endpoint, retries in 5 s and starts its failing time', (result) => {
    expect(decide(fresh, result)).toEqual({ kind: 'retry', at: at(5000), failingSince: at(0) });
  });

  it('keeps the failing time of an endpoint that was failing already, and honours Retry-After', () => {
    const failing = { ...fresh, attempts: 1, failingSince: at(-H) };
    expect(decide(failing, { kind: 'answered', status: 503, retryAfter: '600' })).toEqual({
      kind: 'retry',
      at: at(600_000),
      failingSince: at(-H),
    });
  });

  it('disables an endpoint failing for 24 hours, dropping the message', () => {
    const failing = { ...fresh, attempts: 3, failingSince: at(0) };
    expect(decide(failing, { kind: 'answered', status: 500 }, at(FAILING_LIMIT_MS))).toEqual({
      kind: 'disable',
      reason: 'failing',
      dropMessage: true,
      failingSince: at(0),
    });
    // A moment before, it is retried
    expect(decide(failing, { kind: 'answered', status: 500 }, at(FAILING_LIMIT_MS - 1)).kind).toBe('retry');
  });

  it('gives up a message whose 24 hours are over on an endpoint that is not failing as long', () => {
    // Given a message queued a day ago, on an endpoint that succeeded an hour ago
    const old = { attempts: 7, queuedAt, failingSince: at(23 * H) };
    expect(decide(old, { kind: 'failed', error: 'timeout' }, at(24 * H))).toEqual({
      kind: 'give-up',
      failingSince: at(23 * H),
    });
  });
});
