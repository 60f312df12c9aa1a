import { randomUUID } from 'node:crypto';
import {
  createEvent,
  encodeClickRecord,
  encodeEvent,
  type ClickRecorded,
  type LinkCreated,
  type LinkPreviewFailed,
  type LinkUpdated,
} from '@shortlink/events';
import { HANDLED_LATER, type LogRecord, type RecordInHand } from '@shortlink/event-log';
import { eventually } from '@shortlink/testing';
import type { Enqueued } from './delivery-queue';
import { createEventIntake } from './event-intake';
import type { Subscriber } from './subscriptions';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const occurredAt = '2026-12-01T10:00:00.000Z';
const accountA: string = randomUUID();
const accountB: string = randomUUID();
const linkId: string = randomUUID();
const hook = (webhookId: string, events: string[]): Subscriber => ({
  webhookId,
  events: new Set(events),
  createdAt: new Date('2026-12-01T00:00:00.000Z'),
});
const SUBSCRIBERS = new Map([
  [accountA, [hook('a-all', ['link.created', 'link.updated', 'link.clicked']), hook('a-created', ['link.created'])]],
  [accountB, [hook('b-clicks', ['link.clicked'])]],
]);

const record = (value: Buffer, type?: string): LogRecord => ({
  offset: '0',
  key: null,
  value,
  timestamp: '0',
  headers: type ? { 'event-type': Buffer.from(type) } : {},
});
const links = (value: Buffer, type?: string) =>
  [record(value, type), { topic: 'links', partition: 0, offset: '0' }] as const;
const clicksOf = (value: Buffer) => [record(value), { topic: 'clicks', partition: 0, offset: '0' }] as const;

function inHand() {
  const settled: string[] = [];
  const ticket: RecordInHand = {
    handled: () => void settled.push('handled'),
    release: () => void settled.push('released'),
  };
  return { ticket, settled };
}

const created = (slug: string) =>
  createEvent<LinkCreated>(
    'LinkCreated',
    1,
    { linkId, accountId: accountA, slug, destinationUrl: 'https://example.com', tag: null },
    { eventId: randomUUID(), occurredAt },
  );
const click = (accountId: string): ClickRecorded =>
  createEvent<ClickRecorded>(
    'ClickRecorded',
    1,
    {
      linkId,
      accountId,
      slug: 'abc',
      clickedAt: 0,
      visitorHash: 'c'.repeat(64),
      referrer: 'Direct',
      country: 'XX',
      userAgent: 'ua',
    },
    { eventId: randomUUID(), occurredAt },
  );

function intakeWith(enqueue: (items: readonly Enqueued[]) => Promise<number>, maxWaitMs = 30) {
  return createEventIntake({
    linksTopic: 'links',
    clicksTopic: 'clicks',
    subscribers: (ids) => Promise.resolve(new Map(ids.map((id) => [id, SUBSCRIBERS.get(id) ?? []]))),
    enqueue,
    queued: () => undefined,
    batching: { maxItems: 100, maxWaitMs },
    logger: quiet,
  });
}

describe('taking events into the queue', () => {
  it('given link events, queues each for the endpoints subscribed to its type, in order, and handles the record after', async () => {
    const rounds: Enqueued[][] = [];
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const intake = intakeWith(async (items) => {
      rounds.push([...items]);
      await gate;
      return items.length;
    });
    const first = inHand();
    const second = inHand();
    const updated = createEvent<LinkUpdated>(
      'LinkUpdated',
      1,
      {
        linkId,
        accountId: accountA,
        slug: 'abc',
        version: 2,
        destinationUrl: 'https://example.com/2',
        tag: null,
        changedFields: ['destinationUrl'],
      },
      { eventId: randomUUID(), occurredAt },
    );
    expect(intake.take(...links(encodeEvent(created('abc')), 'LinkCreated'), first.ticket)).toBe(HANDLED_LATER);
    expect(intake.take(...links(encodeEvent(updated), 'LinkUpdated'), second.ticket)).toBe(HANDLED_LATER);
    await eventually(() => Promise.resolve(rounds.length > 0 || undefined));
    // Not handled while the insert is under way
    expect(first.settled).toEqual([]);
    finish();
    await eventually(() => Promise.resolve(second.settled.length > 0 || undefined));
    expect(first.settled).toEqual(['handled']);
    expect(second.settled).toEqual(['handled']);
    const queued = rounds.flat().map((i) => [i.message.type, i.webhookIds]);
    expect(queued).toEqual([
      ['link.created', ['a-all', 'a-created']],
      ['link.updated', ['a-all']],
    ]);
  });

  it('drops what no webhook carries and what does not parse, without queuing', () => {
    const intake = intakeWith(() => Promise.reject(new Error('nothing to queue')));
    const preview = createEvent<LinkPreviewFailed>(
      'LinkPreviewFailed',
      1,
      { linkId, slug: 'abc', reason: 'x' },
      { eventId: randomUUID(), occurredAt },
    );
    expect(intake.take(...links(encodeEvent(preview), 'LinkPreviewFailed'), inHand().ticket)).toMatchObject({
      kind: 'drop',
    });
    expect(intake.take(...links(encodeEvent(preview)), inHand().ticket)).toMatchObject({ kind: 'drop' });
    expect(intake.take(...links(Buffer.from('{not json'), 'LinkCreated'), inHand().ticket)).toMatchObject({
      kind: 'drop',
    });
    expect(intake.take(...clicksOf(Buffer.from('[]')), inHand().ticket)).toMatchObject({ kind: 'drop' });
    intake.stop();
  });

  it('keeps a record in hand while queuing fails, and queues it once the store is back', async () => {
    let calls = 0;
    const intake = intakeWith(() =>
      ++calls === 1 ? Promise.reject(new Error('connection lost')) : Promise.resolve(1),
    );
    const held = inHand();
    intake.take(...links(encodeEvent(created('abc')), 'LinkCreated'), held.ticket);
    await eventually(() => Promise.resolve(held.settled.length > 0 || undefined));
    expect(calls).toBe(2);
    expect(held.settled).toEqual(['handled']);
  });

  it('batches clicks per account, 100 or the wait, and handles a record once all its clicks are queued', async () => {
    const rounds: Enqueued[] = [];
    const intake = intakeWith((items) => {
      rounds.push(...items);
      return Promise.resolve(items.length);
    }, 400);
    const big = inHand();
    const small = inHand();
    intake.take(
      ...clicksOf(encodeClickRecord([...Array.from({ length: 130 }, () => click(accountA)), click(accountB)])),
      big.ticket,
    );
    intake.take(...clicksOf(encodeClickRecord([click(accountA)])), small.ticket);
    // The first 100 of account A are queued at once; the rest wait for the batch's time
    await eventually(() => Promise.resolve(rounds.length > 0 || undefined));
    expect(big.settled).toEqual([]);
    expect(rounds.map((i) => JSON.parse(i.message.payload).data.clicks.length)).toEqual([100]);
    await eventually(() => Promise.resolve((big.settled.length > 0 && small.settled.length > 0) || undefined));
    const batches = rounds.map((i) => [i.webhookIds, JSON.parse(i.message.payload).data.clicks.length]);
    expect(batches).toEqual([
      [['a-all'], 100],
      [['a-all'], 31],
      [['b-clicks'], 1],
    ]);
    expect(big.settled).toEqual(['handled']);
    expect(small.settled).toEqual(['handled']);
  });

  it('gives up at a stop every record not yet queued: released, never handled', async () => {
    const intake = intakeWith(() => new Promise(() => undefined));
    const waiting = inHand();
    const batched = inHand();
    intake.take(...links(encodeEvent(created('abc')), 'LinkCreated'), waiting.ticket);
    intake.take(...clicksOf(encodeClickRecord([click(accountB)])), batched.ticket);
    intake.stop();
    expect(waiting.settled).toEqual(['released']);
    expect(batched.settled).toEqual(['released']);
  });
});
