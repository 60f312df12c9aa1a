import type { AttemptOutcome } from './attempt-outcome';
import type { DeliveryResult } from './deliver';
import type { ClaimedDelivery } from './delivery-queue';
import { outcomesOf, withReplay } from './dispatcher';

const t = (s: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, s));
const delivery = (deliveryId: string, webhookId: string, attempts = 0): ClaimedDelivery => ({
  deliveryId,
  webhookId,
  url: 'https://hooks.example/x',
  messageId: `msg_${deliveryId}`,
  eventType: 'link.created',
  payload: '{}',
  attempts,
  queuedAt: t(0),
  failingSince: null,
  replay: false,
  replayId: null,
});
const ok: DeliveryResult = { kind: 'answered', status: 204, answer: null, latencyMs: 5 };
const err500: DeliveryResult = { kind: 'answered', status: 500, answer: '"oops"', latencyMs: 7 };
const timeout: DeliveryResult = { kind: 'failed', error: 'timeout', latencyMs: 10_000 };
const gone: DeliveryResult = { kind: 'answered', status: 410, answer: null, latencyMs: 3 };

const round = (...items: [ClaimedDelivery, DeliveryResult, AttemptOutcome][]) =>
  outcomesOf(items.map(([d, result, outcome]) => ({ delivery: d, result, outcome, attemptedAt: t(10) })));

describe('a round of attempts as written', () => {
  it('given delivered, retried and given-up messages: removes, reschedules, and logs each attempt without the answer', () => {
    const written = round(
      [delivery('1', 'a'), ok, { kind: 'delivered', failingSince: null }],
      [delivery('2', 'b', 2), err500, { kind: 'retry', at: t(60), failingSince: t(5) }],
      [delivery('3', 'c', 7), timeout, { kind: 'give-up', failingSince: t(1) }],
    );
    expect(written.remove).toEqual(['1', '3']);
    expect(written.reschedule).toEqual([{ deliveryId: '2', at: t(60) }]);
    expect(written.attempts.map((a) => [a.messageId, a.attempt, a.status, a.error])).toEqual([
      ['msg_1', 1, 204, null],
      ['msg_2', 3, 500, null],
      ['msg_3', 8, null, 'timeout'],
    ]);
    expect(written.endpoints).toEqual([
      { webhookId: 'a', failingSince: null, disable: null },
      { webhookId: 'b', failingSince: t(5), disable: null },
      { webhookId: 'c', failingSince: t(1), disable: null },
    ]);
  });

  it('given a 410, keeps the message queued and disables the endpoint, whatever else it answered in the round', () => {
    const written = round(
      [delivery('1', 'a'), gone, { kind: 'disable', reason: 'gone', dropMessage: false, failingSince: null }],
      [delivery('2', 'a'), ok, { kind: 'delivered', failingSince: null }],
    );
    expect(written.reschedule).toEqual([{ deliveryId: '1', at: t(10) }]);
    expect(written.remove).toEqual(['2']);
    expect(written.endpoints).toEqual([{ webhookId: 'a', failingSince: null, disable: 'gone' }]);
  });

  it('folds an endpoint’s attempts in the order they ended: a failure after a success starts its failing time anew', () => {
    const failedThenOk = round(
      [delivery('1', 'a'), err500, { kind: 'retry', at: t(60), failingSince: t(3) }],
      [delivery('2', 'a'), ok, { kind: 'delivered', failingSince: null }],
    );
    expect(failedThenOk.endpoints).toEqual([{ webhookId: 'a', failingSince: null, disable: null }]);
    const okThenFailed = round(
      [delivery('1', 'a'), ok, { kind: 'delivered', failingSince: null }],
      [delivery('2', 'a'), err500, { kind: 'retry', at: t(60), failingSince: t(9) }],
      [delivery('3', 'a'), timeout, { kind: 'retry', at: t(60), failingSince: t(10) }],
    );
    expect(okThenFailed.endpoints).toEqual([{ webhookId: 'a', failingSince: t(9), disable: null }]);
  });
});

describe('the headers of an attempt', () => {
  const signedHeaders = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };

  it('given a replayed message, names its replay in webhook-replay', () => {
    expect(withReplay(signedHeaders, { ...delivery('1', 'a'), replay: true, replayId: 'r-1' })).toEqual({
      ...signedHeaders,
      'webhook-replay': 'r-1',
    });
  });

  it('given a live message, adds nothing', () => {
    expect(withReplay(signedHeaders, delivery('1', 'a'))).toEqual(signedHeaders);
  });
});
