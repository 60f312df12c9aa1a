import { randomUUID } from 'node:crypto';
import { createEvent, type LinkCreated } from '@shortlink/events';
import type { LogProducer, OutgoingRecord } from '@shortlink/event-log';
import { kafkaLinkAppender, type AppendLinkCreated } from './link-created-appender';

const event = (slug: string) =>
  createEvent<LinkCreated>(
    'LinkCreated',
    1,
    { linkId: randomUUID(), accountId: randomUUID(), slug, destinationUrl: 'https://example.com', tag: null },
    { eventId: randomUUID(), occurredAt: '2026-11-22T10:00:00.000Z' },
  );

/** A producer whose sends complete when the test says so. */
function heldProducer() {
  type Append = { topic: string; messages: readonly OutgoingRecord[] };
  const sends: { record: Append; finish: (error?: Error) => void }[] = [];
  const producer: LogProducer = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    append: (topic, messages) =>
      new Promise<void>((resolve, reject) =>
        sends.push({ record: { topic, messages }, finish: (error) => (error ? reject(error) : resolve()) }),
      ),
  };
  return { producer, sends };
}

const tick = () => new Promise((r) => setImmediate(r));

/** One create's append. */
const one = (append: AppendLinkCreated) => (e: LinkCreated) => append([e])[0]!;

describe('kafkaLinkAppender', () => {
  it('sends alone when idle, and groups what arrives while a send is in flight', async () => {
    const { producer, sends } = heldProducer();
    const append = one(kafkaLinkAppender(producer, 'links', 1000));
    const first = append(event('aaa'));
    await tick();
    const rest = ['bbb', 'ccc', 'ddd'].map((s) => append(event(s)));
    await tick();
    expect(sends).toHaveLength(1);
    expect(sends[0]!.record.messages.map((m) => m.key)).toEqual(['aaa']);
    sends[0]!.finish();
    await first;
    await tick();
    expect(sends).toHaveLength(2);
    expect(sends[1]!.record).toMatchObject({ topic: 'links' });
    expect(sends[1]!.record.messages.map((m) => m.key)).toEqual(['bbb', 'ccc', 'ddd']);
    sends[1]!.finish();
    await Promise.all(rest);
  });

  it('sends the events of one bulk create in one request, even when idle', async () => {
    const { producer, sends } = heldProducer();
    const appends = kafkaLinkAppender(producer, 'links', 1000)(['aaa', 'bbb', 'ccc'].map(event));
    await tick();
    expect(sends).toHaveLength(1);
    expect(sends[0]!.record.messages.map((m) => m.key)).toEqual(['aaa', 'bbb', 'ccc']);
    sends[0]!.finish();
    await Promise.all(appends);
  });

  it('fails every append of a failed send, and carries on with the next ones', async () => {
    const { producer, sends } = heldProducer();
    const append = one(kafkaLinkAppender(producer, 'links', 1000));
    const a = append(event('aaa'));
    await tick();
    const [b, c] = [append(event('bbb')), append(event('ccc'))];
    sends[0]!.finish();
    await a;
    await tick();
    sends[1]!.finish(new Error('not enough replicas'));
    await expect(b).rejects.toThrow('not enough replicas');
    await expect(c).rejects.toThrow('not enough replicas');
    const d = append(event('ddd'));
    await tick();
    sends[2]!.finish();
    await expect(d).resolves.toBeUndefined();
  });
});

describe('kafkaLinkAppender under a broker that does not answer', () => {
  it('answers the caller when the deadline passes, and the next append still goes out after the stuck one', async () => {
    jest.useFakeTimers();
    try {
      const { producer, sends } = heldProducer();
      const append = one(kafkaLinkAppender(producer, 'links', 4000));
      const stuck = append(event('aaa'));
      const outcome = stuck.then(
        () => 'confirmed',
        (e: Error) => e.name,
      );
      await jest.advanceTimersByTimeAsync(4000);
      await expect(outcome).resolves.toBe('AppendNotConfirmedError');
      const next = append(event('bbb'));
      sends[0]!.finish(new Error('request timed out'));
      await jest.advanceTimersByTimeAsync(0);
      expect(sends).toHaveLength(2);
      sends[1]!.finish();
      await expect(next).resolves.toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });
});
