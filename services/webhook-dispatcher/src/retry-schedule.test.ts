import { dispatchEnv } from './config';
import { MAX_RETRY_AFTER_MS, nextAttemptAt, RETRY_DELAYS_MS, RETRY_HORIZON_MS, retryAfterMs } from './retry-schedule';

const queuedAt = new Date('2026-12-01T00:00:00.000Z');
const at = (ms: number) => new Date(queuedAt.getTime() + ms);
const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const middle = () => 0.5;

describe('retry schedule', () => {
  it('given no jitter, follows 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then the 24 h horizon, then gives up', () => {
    // Given each attempt made at the moment the schedule said
    const times: number[] = [];
    let now = 0;
    for (let attempts = 1; ; attempts++) {
      // When the attempt fails
      const next = nextAttemptAt({ attempts, queuedAt, now: at(now), random: middle });
      if (next === null) break;
      now = next.getTime() - queuedAt.getTime();
      times.push(now);
    }
    // Then the retries fall at the schedule's offsets, the last on the horizon
    expect(times).toEqual([
      5 * S,
      5 * S + 5 * MIN,
      5 * S + 35 * MIN,
      5 * S + 2 * H + 35 * MIN,
      5 * S + 7 * H + 35 * MIN,
      5 * S + 17 * H + 35 * MIN,
      RETRY_HORIZON_MS,
    ]);
  });

  it("given the installation's own schedule, retries once per entry, then gives up", () => {
    const times: number[] = [];
    let now = 0;
    for (let attempts = 1; ; attempts++) {
      const next = nextAttemptAt({
        attempts,
        queuedAt,
        now: at(now),
        random: middle,
        delaysMs: [2 * S, 10 * S, 60 * S],
      });
      if (next === null) break;
      now = next.getTime() - queuedAt.getTime();
      times.push(now);
    }
    expect(times).toEqual([2 * S, 12 * S, 72 * S]);
  });

  it('reads WEBHOOKS_RETRY_SCHEDULE as seconds, and refuses what is not a list of them', () => {
    expect(dispatchEnv.parse({}).WEBHOOKS_RETRY_SCHEDULE).toEqual([...RETRY_DELAYS_MS]);
    expect(dispatchEnv.parse({ WEBHOOKS_RETRY_SCHEDULE: ' 1, 5 ,30' }).WEBHOOKS_RETRY_SCHEDULE).toEqual([
      1 * S,
      5 * S,
      30 * S,
    ]);
    for (const bad of ['', '5,', '5s', '-1', '1.5', ',5', Array(21).fill('1').join(',')]) {
      expect(dispatchEnv.safeParse({ WEBHOOKS_RETRY_SCHEDULE: bad }).success).toBe(false);
    }
  });

  it('moves each delay by at most 20 % either way', () => {
    // Given the lowest and the highest random draw
    const low = nextAttemptAt({ attempts: 3, queuedAt, now: at(0), random: () => 0 });
    const high = nextAttemptAt({ attempts: 3, queuedAt, now: at(0), random: () => 0.999999 });
    // Then 30 min becomes 24 min and almost 36 min
    expect(low).toEqual(at(24 * MIN));
    expect(high!.getTime() - queuedAt.getTime()).toBeGreaterThan(35.99 * MIN);
    expect(high!.getTime() - queuedAt.getTime()).toBeLessThanOrEqual(36 * MIN);
  });

  it('waits as long as Retry-After asks when that is longer than the schedule, up to 1 h', () => {
    // Given a first failure answered with Retry-After: 120 (the schedule says 5 s)
    expect(nextAttemptAt({ attempts: 1, queuedAt, now: at(0), retryAfter: '120', random: middle })).toEqual(
      at(120 * S),
    );
    // Given one asking for a day: bounded to 1 h
    expect(nextAttemptAt({ attempts: 1, queuedAt, now: at(0), retryAfter: '86400', random: middle })).toEqual(
      at(MAX_RETRY_AFTER_MS),
    );
    // Given one shorter than the schedule: the schedule stands
    expect(nextAttemptAt({ attempts: 4, queuedAt, now: at(0), retryAfter: '1', random: middle })).toEqual(at(2 * H));
  });

  it('reads Retry-After as an HTTP date, and ignores what is neither form', () => {
    const now = new Date('2026-12-01T10:00:00.000Z');
    expect(retryAfterMs('Tue, 01 Dec 2026 10:02:00 GMT', now)).toBe(120 * S);
    expect(retryAfterMs('Tue, 01 Dec 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-5', now)).toBeUndefined();
    expect(retryAfterMs('1e9', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it('never schedules past the 24 h horizon, Retry-After included, and gives up at it', () => {
    // Given a failure 30 minutes before the horizon asking for an hour
    const late = nextAttemptAt({ attempts: 5, queuedAt, now: at(23.5 * H), retryAfter: '3600', random: middle });
    // Then the retry falls on the horizon
    expect(late).toEqual(at(RETRY_HORIZON_MS));
    // Given a failure at the horizon: given up
    expect(nextAttemptAt({ attempts: 2, queuedAt, now: at(RETRY_HORIZON_MS), random: middle })).toBeNull();
  });
});
