import type { LinkDecision } from '../rules/decide-link-change';
import type { LinkChangeStore } from './link-change-store';
import { accountConnectionLimit } from './account-connection-limit';
import { serializedLinkChanges } from './serialized-link-changes';
import { DependencyTimeout } from '@shortlink/http';

/** A store whose calls end when the test says, recording how many of each are at work at once. */
function heldStore() {
  const calls: { kind: 'change' | 'publish'; slug: string; end: (ok: boolean) => void }[] = [];
  const atWork = { change: 0, publish: 0, mostChanges: 0, mostPublishes: 0 };
  const call = <T>(kind: 'change' | 'publish', slug: string, value: T) =>
    new Promise<T>((resolve, reject) => {
      atWork[kind]++;
      atWork.mostChanges = Math.max(atWork.mostChanges, atWork.change);
      atWork.mostPublishes = Math.max(atWork.mostPublishes, atWork.publish);
      calls.push({
        kind,
        slug,
        end: (ok) => {
          atWork[kind]--;
          if (ok) resolve(value);
          else reject(new Error(`${kind} failed`));
        },
      });
    });
  const store: LinkChangeStore = {
    change: (slug) => call<LinkDecision>('change', slug, { kind: 'not-found' }),
    publish: (slug) => call('publish', slug, 1),
  };
  return { store, calls, atWork };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const append = async () => undefined;

describe('serializedLinkChanges', () => {
  it('runs one change of a link at a time, in the order asked, a failed one not holding up the rest', async () => {
    // Given 20 changes of one link asked at once
    const { store, calls, atWork } = heldStore();
    const turns = serializedLinkChanges(store);
    const answers = Array.from({ length: 20 }, () => turns.change('a', () => ({ kind: 'not-found' })));
    // Each caller's outcome is taken as it comes, as a caller awaiting its change does.
    const settled = Promise.allSettled(answers);
    await tick();
    // When each ends in turn, the third failing
    for (let i = 0; i < 20; i++) {
      expect(calls).toHaveLength(i + 1);
      calls[i]!.end(i !== 2);
      await tick();
    }
    // Then only one was ever at the store, and each caller got its own outcome
    expect(atWork.mostChanges).toBe(1);
    const outcomes = await settled;
    expect(outcomes.map((o) => o.status)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i === 2 ? 'rejected' : 'fulfilled')),
    );
  });

  it('gives a change its account’s share only once it is its link’s turn: a crowd on one link leaves the rest of the share free', async () => {
    // Given an account's share of two (a pool of four) and ten changes of its link a at once
    const { store, calls } = heldStore();
    const turns = serializedLinkChanges(store, accountConnectionLimit(4));
    const decide = (): LinkDecision => ({ kind: 'not-found' });
    for (let i = 0; i < 10; i++) void turns.change('a', decide, { accountId: 'account-1' });
    await tick();
    expect(calls.map((c) => c.slug)).toEqual(['a']);

    // When the account changes links b and c too
    void turns.change('b', decide, { accountId: 'account-1' });
    void turns.change('c', decide, { accountId: 'account-1' });
    await tick();

    // Then b goes beside a at once (a's waiting changes hold none of the share), and c waits for it
    expect(calls.map((c) => c.slug)).toEqual(['a', 'b']);
    // And another account's change is not held by the first one's share
    void turns.change('d', decide, { accountId: 'account-2' });
    await tick();
    expect(calls.map((c) => c.slug)).toEqual(['a', 'b', 'd']);
    calls[1]!.end(true);
    await tick();
    expect(calls.map((c) => c.slug)).toEqual(['a', 'b', 'd', 'c']);
  });

  it('lets changes of other links go side by side', async () => {
    const { store, calls } = heldStore();
    const turns = serializedLinkChanges(store);
    void turns.change('a', () => ({ kind: 'not-found' }));
    void turns.change('b', () => ({ kind: 'not-found' }));
    await tick();
    expect(calls.map((c) => c.slug)).toEqual(['a', 'b']);
  });

  it('shares a publish among the callers who asked while one ran: at most two runs for 30 callers', async () => {
    // Given a publish of a link at work, and 30 more asked for meanwhile
    const { store, calls, atWork } = heldStore();
    const turns = serializedLinkChanges(store);
    const first = turns.publish('a', append);
    const joined = Array.from({ length: 30 }, () => turns.publish('a', append));
    await tick();
    expect(calls).toHaveLength(1);
    // When the running one ends, then the next
    calls[0]!.end(true);
    await tick();
    expect(calls).toHaveLength(2);
    calls[1]!.end(true);
    // Then the 30 were carried by one more run, never two at once
    await expect(first).resolves.toBe(1);
    await expect(Promise.all(joined)).resolves.toEqual(Array.from({ length: 30 }, () => 1));
    expect(calls).toHaveLength(2);
    expect(atWork.mostPublishes).toBe(1);
  });

  it('never answers a publish with a run that began before it was asked for, and goes on after a failed run', async () => {
    const { store, calls } = heldStore();
    const turns = serializedLinkChanges(store);
    const first = turns.publish('a', append);
    await tick();
    // Asked while the first runs: its change may not have been in the outbox when that run read it
    const second = turns.publish('a', append);
    calls[0]!.end(false);
    await expect(first).rejects.toThrow('publish failed');
    await tick();
    expect(calls).toHaveLength(2);
    calls[1]!.end(true);
    await expect(second).resolves.toBe(1);
    // And with nothing running, the next one starts at once
    void turns.publish('a', append);
    await tick();
    expect(calls).toHaveLength(3);
  });

  it('withdraws a change whose turn does not come within startWithinMs, and lets one that started run past it', async () => {
    // Given changes that must start within 50 ms, and a change of link a under way at a store that does not answer
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      const { store, calls } = heldStore();
      const turns = serializedLinkChanges(store, accountConnectionLimit(4), { startWithinMs: 50 });
      const holder = turns.change('a', () => ({ kind: 'not-found' }), { accountId: 'acct' });
      const waiting = turns.change('a', () => ({ kind: 'not-found' }), { accountId: 'acct' });
      await tick();
      expect(calls).toHaveLength(1);
      // When 50 ms pass
      jest.advanceTimersByTime(50);
      // Then the waiting one is answered as an outage, and the one under way is still awaited
      await expect(waiting).rejects.toBeInstanceOf(DependencyTimeout);
      let holderDone = false;
      void holder.then(() => (holderDone = true));
      await tick();
      expect(holderDone).toBe(false);
      // And when the holder ends, its answer comes and the withdrawn change never reaches the store
      calls[0]!.end(true);
      await expect(holder).resolves.toEqual({ kind: 'not-found' });
      await tick();
      expect(calls).toHaveLength(1);
      // While a change whose turn comes at once starts and ends normally
      const next = turns.change('a', () => ({ kind: 'not-found' }), { accountId: 'acct' });
      await tick();
      expect(calls).toHaveLength(2);
      calls[1]!.end(true);
      await expect(next).resolves.toEqual({ kind: 'not-found' });
    } finally {
      jest.useRealTimers();
    }
  });

  it('has at most publishesAtOnce publishes at work, and withdraws one whose place does not come within startWithinMs', async () => {
    // Given room for two publishes, and publishes of five links asked at once while the log does not answer
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      const { store, calls, atWork } = heldStore();
      const turns = serializedLinkChanges(store, undefined, { startWithinMs: 50, publishesAtOnce: 2 });
      const asked = ['a', 'b', 'c', 'd', 'e'].map((slug) => turns.publish(slug, append));
      const settled = Promise.allSettled(asked);
      await tick();
      // Then two are at work and the others wait in the process, holding nothing
      expect(calls.map((c) => c.slug)).toEqual(['a', 'b']);
      // When one ends, the next takes its place
      calls[0]!.end(true);
      await tick();
      expect(calls.map((c) => c.slug)).toEqual(['a', 'b', 'c']);
      // And when 50 ms pass, the two still waiting are withdrawn as the log's outage, never to reach the store
      jest.advanceTimersByTime(50);
      calls[1]!.end(true);
      calls[2]!.end(true);
      const outcomes = await settled;
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
      expect((outcomes[3] as PromiseRejectedResult).reason).toMatchObject({ dependency: 'the event log' });
      await tick();
      expect(calls).toHaveLength(3);
      expect(atWork.mostPublishes).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('gives a change that waited for its turn only what is left of startWithinMs for its commit (commitBy)', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'], now: 1_000_000 });
    try {
      // Given a store that records each change's commitBy, and a change of link a under way
      const { store, calls } = heldStore();
      const commitBys: (number | undefined)[] = [];
      const recording: LinkChangeStore = {
        ...store,
        change: (slug, decide, options) => {
          commitBys.push(options?.commitBy);
          return store.change(slug, decide, options);
        },
      };
      const turns = serializedLinkChanges(recording, undefined, { startWithinMs: 50 });
      void turns.change('a', () => ({ kind: 'not-found' }));
      // When another change of a arrives 10 ms later and its turn comes 30 ms after that
      jest.advanceTimersByTime(10);
      const waiting = turns.change('a', () => ({ kind: 'not-found' }));
      await tick();
      jest.advanceTimersByTime(30);
      calls[0]!.end(true);
      await tick();
      await tick();
      // Then each must commit by its own arrival plus 50 ms: the later one has 20 ms left, not 50
      expect(commitBys).toEqual([1_000_050, 1_000_060]);
      calls[1]!.end(true);
      await expect(waiting).resolves.toEqual({ kind: 'not-found' });
    } finally {
      jest.useRealTimers();
    }
  });
});
