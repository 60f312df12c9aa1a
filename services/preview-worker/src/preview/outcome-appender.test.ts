import { setTimeout as sleep } from 'node:timers/promises';
import { createOutcomeAppender } from './outcome-appender';

/**
 * An appender of names, whose requests the test holds or fails; what happened to each name is kept. A name
 * ending in `@n` was created at n (else at 0).
 */
function appenderWith(append: (events: string[]) => Promise<void>, maxBatch = 500) {
  const requests: string[][] = [];
  const appended: string[] = [];
  const released: string[] = [];
  const failures: number[] = [];
  let built = 0;
  const appender = createOutcomeAppender<string, string>({
    eventOf: (link) => {
      built++;
      return `event of ${link}`;
    },
    append: async (events) => {
      requests.push(events);
      await append(events);
    },
    appended: (link) => void appended.push(link),
    released: (link) => void released.push(link),
    failed: (_err, attempt) => void failures.push(attempt),
    createdAtOf: (link) => Number(/@(\d+)$/.exec(link)?.[1] ?? 0),
    maxBatch,
    maxBackoffMs: 20,
  });
  return { appender, requests, appended, released, failures, built: () => built };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await sleep(5);
  if (!check()) throw new Error('condition not met in time');
}

/** An appender whose first request waits until `release` is called; the others succeed at once. */
function appenderWithFirstRequestHeld() {
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  let first = true;
  const appender = appenderWith(async () => {
    if (first) {
      first = false;
      await held;
    }
  });
  return { ...appender, release: () => release() };
}

describe('createOutcomeAppender', () => {
  it('sends a fresh link’s outcome at once, ahead of a backlog of outcomes waiting to be sent', async () => {
    // Given a first request that is slow, and 600 backlog outcomes queued behind it
    const { appender, requests, appended, release } = appenderWithFirstRequestHeld();
    appender.add('backlog-0', false);
    for (let i = 1; i <= 600; i++) appender.add(`backlog-${i}`, false);
    // When a fresh link's outcome comes
    appender.add('fresh-link', true);
    await until(() => appended.includes('fresh-link'));
    // Then it went out in a request of its own, while the backlog's first request was still under way
    expect(requests.map((r) => r.length)).toEqual([1, 1]);
    expect(requests[1]).toEqual(['event of fresh-link']);
    expect(appended).toEqual(['fresh-link']);
    expect(appender.pending).toBe(601);
    release();
    await until(() => appended.length === 602);
    // And the outcomes finished meanwhile shared requests of at most 500
    expect(requests.slice(2).map((r) => r.length)).toEqual([500, 100]);
    expect(appender.pending).toBe(0);
  });

  it('sends the newest fresh outcomes first: a link created after a fresh bulk import waits for one request of it', async () => {
    // Given a fresh lane busy with a bulk import's outcomes, its first request slow
    const { appender, requests, appended, release } = appenderWithFirstRequestHeld();
    for (let i = 0; i <= 1_200; i++) appender.add(`import@${i}`, true);
    // When a link created after the import has its outcome
    appender.add('new@5000', true);
    release();
    await until(() => appended.length === 1_202);
    // Then it goes in the next request, and the import follows the newest first
    expect(requests.map((r) => r.length)).toEqual([1, 500, 500, 201]);
    expect(requests[1]![0]).toBe('event of new@5000');
    expect(requests[1]![1]).toBe('event of import@1200');
    expect(requests[3]!.at(-1)).toBe('event of import@1');
  });

  it('tries a failed request again, with the same events, until it succeeds', async () => {
    let failures = 2;
    const {
      appender,
      requests,
      appended,
      failures: failed,
      built,
    } = appenderWith(async () => {
      if (failures-- > 0) throw new Error('broker away');
    });
    appender.add('a', false);
    appender.add('b', false);
    await until(() => appended.length === 2);
    expect(failed).toEqual([0, 1]);
    // (the first link leaves alone: the lane was idle)
    expect(requests).toEqual([['event of a'], ['event of a'], ['event of a'], ['event of b']]);
    // Each event was built once: a retry repeats the event ids, which consumers drop
    expect(built()).toBe(2);
  });

  it('releases the links of a request that fails once stopped, and appends the ones that can be', async () => {
    let failing = true;
    const { appender, appended, released } = appenderWith(async (events) => {
      if (failing && events.includes('event of doomed')) throw new Error('broker away');
    });
    appender.add('doomed', false);
    await sleep(10);
    appender.stop();
    await until(() => released.length === 1);
    expect(released).toEqual(['doomed']);
    failing = false;
    appender.add('later', false);
    await until(() => appended.length === 1);
    expect(appended).toEqual(['later']);
    expect(appender.pending).toBe(0);
  });
});
