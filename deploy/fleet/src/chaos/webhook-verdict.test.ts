import { Webhook } from 'standardwebhooks';
import type { ReceivedDelivery } from '@shortlink/testing';
import { judgeWebhooks, type AcknowledgedLinkEvent, type WebhookEvidence } from './webhook-verdict';

const BACK = Date.parse('2026-12-06T10:00:00Z');
const secret = (seed: string) => `whsec_${Buffer.alloc(24, seed).toString('base64')}`;
const SECRETS = { a: secret('a'), b: secret('b') };
const ALL = ['link.created', 'link.updated', 'link.deleted', 'link.clicked'];

/** One link of account a (slug wh-1-a-1) and one of b, each created and changed; a's clicked twice. */
const A = { id: '00000000-0000-4000-8000-00000000000a', slug: 'wh-1-a-1' };
const B = { id: '00000000-0000-4000-8000-00000000000b', slug: 'wh-1-b-1' };
const acknowledged: AcknowledgedLinkEvent[] = [
  { account: 'a', type: 'link.created', linkId: A.id },
  { account: 'a', type: 'link.updated', linkId: A.id, destinationUrl: 'https://example.com/a/2' },
  { account: 'b', type: 'link.created', linkId: B.id },
  { account: 'b', type: 'link.deleted', linkId: B.id },
];

const linkBody = (type: string, link: { id: string; slug: string }, version: number, destinationUrl?: string) =>
  JSON.stringify({
    type,
    timestamp: '2026-12-06T09:59:00.000Z',
    data: { id: link.id, slug: link.slug, version, ...(destinationUrl && { destinationUrl }) },
  });
const clicksBody = (eventIds: string[]) =>
  JSON.stringify({
    type: 'link.clicked',
    timestamp: '2026-12-06T09:59:00.000Z',
    data: { clicks: eventIds.map((eventId) => ({ eventId, linkId: A.id, slug: A.slug })) },
  });

/** A request as the receiver logs it, signed with `signWith` when it was sent, `at` ms after the receiver's return. */
function delivery(
  path: string,
  id: string,
  body: string,
  at: number,
  { status = 204, signWith = path.startsWith('/a') ? SECRETS.a : SECRETS.b, signedAt = BACK + at } = {},
): ReceivedDelivery {
  const timestamp = new Date(Math.floor(signedAt / 1000) * 1000);
  return {
    path,
    status,
    at: BACK + at,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp.getTime() / 1000),
      'webhook-signature': new Webhook(signWith).sign(id, timestamp, body),
    },
    body,
    type: (JSON.parse(body) as { type: string }).type,
    timestamp: (JSON.parse(body) as { timestamp?: string }).timestamp ?? '',
  };
}

/** Every event at each subscribed endpoint once, a's clicks in one message; /b/plain takes no changes. */
const everyDelivery = (): ReceivedDelivery[] => [
  delivery('/a/flaky', 'msg_1', linkBody('link.created', A, 1), 1000),
  delivery('/a/flaky', 'msg_2', linkBody('link.updated', A, 2, 'https://example.com/a/2'), 2000),
  delivery('/a/flaky', 'msg_clicks_1', clicksBody(['c1', 'c2']), 3000),
  delivery('/b/plain', 'msg_3', linkBody('link.created', B, 1), 1500),
  delivery('/b/plain', 'msg_4', linkBody('link.deleted', B, 2), 4000),
];

const evidence = (received: ReceivedDelivery[] = everyDelivery()): WebhookEvidence => ({
  endpoints: [
    { path: '/a/flaky', account: 'a', secret: SECRETS.a, events: ALL },
    { path: '/b/plain', account: 'b', secret: SECRETS.b, events: ALL.filter((e) => e !== 'link.updated') },
  ],
  slugPrefixes: { a: 'wh-1-a-', b: 'wh-1-b-' },
  acknowledged,
  clicks: [{ account: 'a', linkId: A.id, redirected: 2 }],
  received,
  receiverBackAt: BACK,
  deadlineMs: 120_000,
});

const failed = (e: WebhookEvidence) =>
  judgeWebhooks(e)
    .checks.filter((c) => !c.ok)
    .map((c) => c.name);

describe('judging the webhook phase', () => {
  it('passes when every event reached each subscribed endpoint of its account, signed, once', () => {
    // Given every delivery due, answered 204 within the deadline
    // When judged
    const { checks, figures } = judgeWebhooks(evidence());
    // Then every rule holds, and the figures count them
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(figures).toEqual({
      linkEvents: 4,
      clicks: 2,
      eventDeliveriesDue: 4,
      eventDeliveriesInTime: 4,
      eventDeliveriesAfterReturn: 4,
      clickDeliveriesDue: 2,
      clickDeliveriesInTime: 2,
      requests: 5,
      answeredOk: 5,
      duplicates: 0,
      clicksInAnotherBatch: 0,
      drainedMsAfterReturn: 4000,
    });
  });

  it('fails when an acknowledged event never reached an endpoint, or only with a failed answer', () => {
    // Given the change of a's link answered 500 and never retried
    const received = everyDelivery();
    received[1] = { ...received[1]!, status: 500 };
    // Then it is missing, and the phase never drained
    expect(failed(evidence(received))).toEqual([
      "every acknowledged link event delivered within 120 s of the receiver's return",
    ]);
    expect(judgeWebhooks(evidence(received)).figures.drainedMsAfterReturn).toBeNull();
  });

  it('fails when a delivery came after the deadline, and says how long the drain took', () => {
    // Given b's delete delivered 130 s after the receiver came back
    const received = everyDelivery();
    received[4] = delivery('/b/plain', 'msg_4', linkBody('link.deleted', B, 2), 130_000);
    const { checks, figures } = judgeWebhooks(evidence(received));
    expect(checks.filter((c) => !c.ok).map((c) => c.detail)).toEqual([
      "3 of 4 deliveries due (4 events to their account's subscribed endpoints); 1 later, 0 never",
    ]);
    expect(figures.drainedMsAfterReturn).toBe(130_000);
  });

  it('fails when a counted click is missing, and counts a click sent again in another batch', () => {
    // Given one of a's two clicks delivered, then that click again in a batch cut anew
    const received = everyDelivery();
    received[2] = delivery('/a/flaky', 'msg_clicks_1', clicksBody(['c1']), 3000);
    received.push(delivery('/a/flaky', 'msg_clicks_2', clicksBody(['c1']), 5000));
    const { figures } = judgeWebhooks(evidence(received));
    expect(failed(evidence(received))).toEqual(["every counted click delivered within 120 s of the receiver's return"]);
    expect(figures.clicksInAnotherBatch).toBe(1);
  });

  it("fails when an endpoint is told of another account's link", () => {
    // Given b's link created sent to a's endpoint, signed with a's secret
    const received = [...everyDelivery(), delivery('/a/flaky', 'msg_3', linkBody('link.created', B, 1), 1500)];
    expect(failed(evidence(received))).toEqual(["no endpoint told of another account's link"]);
  });

  it("fails when a link's slug is its account's but its id is another account's", () => {
    const received = [
      ...everyDelivery(),
      delivery('/a/flaky', 'msg_9', linkBody('link.created', { id: B.id, slug: 'wh-1-a-9' }, 1), 1500),
    ];
    expect(failed(evidence(received))).toEqual(["no endpoint told of another account's link"]);
  });

  it('fails when an endpoint gets an event type it did not subscribe to', () => {
    // Given a change of b's link sent to /b/plain, which takes no changes
    const received = [
      ...everyDelivery(),
      delivery('/b/plain', 'msg_5', linkBody('link.updated', B, 2, 'https://example.com/b/2'), 1800),
    ];
    expect(failed(evidence(received))).toContain('no endpoint sent an event type it did not subscribe to');
  });

  it("fails when a signature is another endpoint's secret's, or its timestamp was stale when it came", () => {
    const otherSecret = everyDelivery();
    otherSecret[0] = delivery('/a/flaky', 'msg_1', linkBody('link.created', A, 1), 1000, { signWith: SECRETS.b });
    expect(failed(evidence(otherSecret))).toEqual(["every signature verifies with its endpoint's secret"]);
    const stale = everyDelivery();
    stale[0] = delivery('/a/flaky', 'msg_1', linkBody('link.created', A, 1), 1000, { signedAt: BACK - 400_000 });
    expect(failed(evidence(stale))).toEqual(["every signature verifies with its endpoint's secret"]);
  });

  it('counts a copy under the same webhook-id as a duplicate, and fails one under another id or with another body', () => {
    // Given a's create delivered twice under its id: a duplicate, within the rules
    const same = [...everyDelivery(), delivery('/a/flaky', 'msg_1', linkBody('link.created', A, 1), 9000)];
    expect(failed(evidence(same))).toEqual([]);
    expect(judgeWebhooks(evidence(same)).figures.duplicates).toBe(1);
    // When the copy carries another id, or the id another body
    const otherId = [...everyDelivery(), delivery('/a/flaky', 'msg_1b', linkBody('link.created', A, 1), 9000)];
    const otherBody = [
      ...everyDelivery(),
      delivery('/a/flaky', 'msg_1', linkBody('link.updated', A, 2, 'https://example.com/a/2'), 9000),
    ];
    // Then the rule is broken
    expect(failed(evidence(otherId))).toEqual(['every copy of a message carries the same webhook-id and body']);
    expect(failed(evidence(otherBody))).toContain('every copy of a message carries the same webhook-id and body');
  });

  it("fails when a link's later event was first delivered before its earlier one", () => {
    const received = everyDelivery();
    received[1] = delivery('/a/flaky', 'msg_2', linkBody('link.updated', A, 2, 'https://example.com/a/2'), 500);
    expect(failed(evidence(received))).toEqual(["a link's events delivered in order at each endpoint"]);
  });

  it('fails on a request it cannot read, or at a path no endpoint has', () => {
    const garbled = [...everyDelivery(), { ...everyDelivery()[0]!, body: 'not json' }];
    const stray = [...everyDelivery(), { ...everyDelivery()[0]!, path: '/c/flaky' }];
    expect(failed(evidence(garbled))).toContain("no endpoint told of another account's link");
    expect(failed(evidence(stray))).toContain("no endpoint told of another account's link");
  });
});
