import { Webhook } from 'standardwebhooks';
import type { ReceivedDelivery } from '@shortlink/testing';
import type { Check } from './phase-verdict';

export type LinkEventType = 'link.created' | 'link.updated' | 'link.deleted';

/** One endpoint on the receiver: whose it is, its signing secret, what it subscribed to. */
export interface WebhookEndpoint {
  /** The path the receiver logs its requests under. */
  path: string;
  account: string;
  secret: string;
  events: readonly string[];
}

/** A link event the API acknowledged (201, 200, 204): each subscribed endpoint of its account must get it. */
export interface AcknowledgedLinkEvent {
  account: string;
  type: LinkEventType;
  linkId: string;
  /** A change's new destination: every change of the phase sends a new one, so it names the change. */
  destinationUrl?: string;
}

/** What the webhook phase saw: its accounts' requests and answers, and every request its receiver logged. */
export interface WebhookEvidence {
  endpoints: readonly WebhookEndpoint[];
  /**
   * Each account's slugs begin with its prefix. Every event names its link's slug, so its account is known
   * even for a link whose create's answer was lost.
   */
  slugPrefixes: Readonly<Record<string, string>>;
  acknowledged: readonly AcknowledgedLinkEvent[];
  /** Redirects of each account's links answered 302 to a browser: clicks that were counted. */
  clicks: readonly { account: string; linkId: string; redirected: number }[];
  received: readonly ReceivedDelivery[];
  /** When the receiver listened again after its outage (ms since the epoch). */
  receiverBackAt: number;
  /** How long after that every delivery due must have been answered 2xx. */
  deadlineMs: number;
}

export interface WebhookFigures {
  linkEvents: number;
  clicks: number;
  /** Each acknowledged link event times each subscribed endpoint of its account, and those answered 2xx in time. */
  eventDeliveriesDue: number;
  eventDeliveriesInTime: number;
  /** Of those, first answered 2xx after the receiver returned: what its outage held back. */
  eventDeliveriesAfterReturn: number;
  /** Likewise each counted click. */
  clickDeliveriesDue: number;
  clickDeliveriesInTime: number;
  requests: number;
  answeredOk: number;
  /** Copies answered 2xx beyond the first of a message at an endpoint. */
  duplicates: number;
  /** Clicks answered 2xx at an endpoint in more than one message (a batch cut again after a restart). */
  clicksInAnotherBatch: number;
  /** From the receiver's return until the last delivery due was answered 2xx (null: one never was). */
  drainedMsAfterReturn: number | null;
}

/** Standard Webhooks receivers refuse a timestamp further than this from their clock (the libraries' 5 minutes). */
const TIMESTAMP_TOLERANCE_S = 300;

interface Told {
  type: string;
  /** A link event's key (see linkEventKey); undefined for clicks. */
  key?: string;
  linkId?: string;
  version?: number;
  links: { id: string; slug: string }[];
  clicks: { eventId: string; linkId: string }[];
}

const linkEventKey = (type: string, linkId: string, destinationUrl?: string) =>
  type === 'link.updated' ? `${type} ${linkId} ${destinationUrl}` : `${type} ${linkId}`;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** What a delivery's body tells, or null when it is not a message of this service. */
function read(body: string): Told | null {
  let parsed: { type?: unknown; data?: Record<string, unknown> };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return null;
  }
  const type = text(parsed.type);
  const data = parsed.data;
  if (type === undefined || typeof data !== 'object' || data === null) return null;
  if (type === 'link.clicked') {
    if (!Array.isArray(data.clicks)) return null;
    const clicks = (data.clicks as Record<string, unknown>[]).map((c) => ({
      eventId: text(c.eventId) ?? '',
      linkId: text(c.linkId) ?? '',
      slug: text(c.slug) ?? '',
    }));
    return { type, links: clicks.map((c) => ({ id: c.linkId, slug: c.slug })), clicks };
  }
  const id = text(data.id);
  const slug = text(data.slug);
  if (id === undefined || slug === undefined) return null;
  return {
    type,
    key: linkEventKey(type, id, text(data.destinationUrl)),
    linkId: id,
    version: typeof data.version === 'number' ? data.version : undefined,
    links: [{ id, slug }],
    clicks: [],
  };
}

/** Signed as Standard Webhooks asks, under `secret`, with a timestamp a receiver would have taken when it came. */
function verifies(secret: string, delivery: ReceivedDelivery): boolean {
  const id = delivery.headers['webhook-id'];
  const timestamp = Number(delivery.headers['webhook-timestamp']);
  const signatures = (delivery.headers['webhook-signature'] ?? '').split(' ');
  if (id === undefined || !Number.isInteger(timestamp)) return false;
  // Not Webhook.verify: it holds the timestamp against the clock now, long after the delivery came.
  if (Math.abs(delivery.at / 1000 - timestamp) > TIMESTAMP_TOLERANCE_S) return false;
  const expected = new Webhook(secret).sign(id, new Date(timestamp * 1000), delivery.body);
  return signatures.includes(expected);
}

const ok = (d: ReceivedDelivery) => d.status >= 200 && d.status < 300;

/** Keeps the first few examples of a kind of failure for the check's detail. */
function examples(): { add: (example: string) => void; text: () => string } {
  const kept: string[] = [];
  let more = 0;
  return {
    add: (example) => (kept.length < 3 ? kept.push(example) : more++),
    text: () => (kept.length === 0 ? '' : `; e.g. ${kept.join(', ')}${more > 0 ? ` and ${more} more` : ''}`),
  };
}

/**
 * The webhook rules: every acknowledged event (and every counted click) reaches each subscribed endpoint of its
 * account at least once, within `deadlineMs` of the receiver's return; no endpoint is told of another account's
 * link, or of an event type it did not subscribe to; every request's signature verifies with its endpoint's
 * secret; every copy of a message carries the same webhook-id and body; a link's events come in order. Pure.
 */
export function judgeWebhooks(e: WebhookEvidence): { checks: Check[]; figures: WebhookFigures } {
  const checks: Check[] = [];
  const check = (name: string, passed: boolean, detail: string) =>
    checks.push({ name, kind: 'exactness', ok: passed, detail });
  const deadline = e.receiverBackAt + e.deadlineMs;
  const endpointAt = new Map(e.endpoints.map((endpoint) => [endpoint.path, endpoint]));
  const linkOwners = new Map(e.acknowledged.map((a) => [a.linkId, a.account]));
  const ownerOfSlug = (slug: string) =>
    Object.entries(e.slugPrefixes).find(([, prefix]) => slug.startsWith(prefix))?.[0];
  const told = e.received.map((delivery) => ({ delivery, told: read(delivery.body) }));

  // When each message first reached each endpoint, answered 2xx: link events by their key, clicks by event id.
  const firstOk = new Map<string, number>();
  const firstClickOk = new Map<string, number>();
  const seen = (map: Map<string, number>, key: string, at: number) => map.set(key, Math.min(map.get(key) ?? at, at));
  for (const { delivery, told: t } of told) {
    if (!ok(delivery) || t === null) continue;
    if (t.key !== undefined) seen(firstOk, `${delivery.path} ${t.key}`, delivery.at);
    for (const click of t.clicks) seen(firstClickOk, `${delivery.path} ${click.linkId} ${click.eventId}`, delivery.at);
  }

  let due = 0;
  let inTime = 0;
  let lastDue = e.receiverBackAt;
  let neverDelivered = false;
  const missing = examples();
  let late = 0;
  let afterReturn = 0;
  for (const endpoint of e.endpoints) {
    for (const event of e.acknowledged) {
      if (event.account !== endpoint.account || !endpoint.events.includes(event.type)) continue;
      due++;
      const at = firstOk.get(`${endpoint.path} ${linkEventKey(event.type, event.linkId, event.destinationUrl)}`);
      if (at === undefined) {
        neverDelivered = true;
        missing.add(`${endpoint.path} ${event.type} ${event.linkId}`);
        continue;
      }
      lastDue = Math.max(lastDue, at);
      if (at >= e.receiverBackAt) afterReturn++;
      if (at <= deadline) inTime++;
      else late++;
    }
  }
  check(
    `every acknowledged link event delivered within ${e.deadlineMs / 1000} s of the receiver's return`,
    inTime === due,
    `${inTime} of ${due} deliveries due (${e.acknowledged.length} events to their account's subscribed endpoints); ` +
      `${late} later, ${due - inTime - late} never${missing.text()}`,
  );

  // Clicks: a link's n counted clicks are n distinct event ids at each endpoint that subscribed to them.
  const clickIdsAt = new Map<string, number[]>();
  for (const [key, at] of firstClickOk) {
    const [path, linkId] = key.split(' ');
    const k = `${path} ${linkId}`;
    clickIdsAt.set(k, [...(clickIdsAt.get(k) ?? []), at]);
  }
  let clicksDue = 0;
  let clicksInTime = 0;
  const clicksMissing = examples();
  for (const endpoint of e.endpoints) {
    if (!endpoint.events.includes('link.clicked')) continue;
    for (const link of e.clicks) {
      if (link.account !== endpoint.account || link.redirected === 0) continue;
      clicksDue += link.redirected;
      const times = (clickIdsAt.get(`${endpoint.path} ${link.linkId}`) ?? []).sort((a, b) => a - b);
      clicksInTime += Math.min(link.redirected, times.filter((at) => at <= deadline).length);
      const complete = times[link.redirected - 1];
      if (complete === undefined) {
        neverDelivered = true;
        clicksMissing.add(`${endpoint.path} ${link.linkId} (${times.length} of ${link.redirected})`);
      } else lastDue = Math.max(lastDue, complete);
    }
  }
  check(
    `every counted click delivered within ${e.deadlineMs / 1000} s of the receiver's return`,
    clicksInTime === clicksDue,
    `${clicksInTime} of ${clicksDue} clicks due (302s to a browser, times the endpoints subscribed)${clicksMissing.text()}`,
  );

  let foreign = 0;
  let unreadable = 0;
  let unsubscribed = 0;
  let unsigned = 0;
  const foreignExamples = examples();
  for (const { delivery, told: t } of told) {
    const endpoint = endpointAt.get(delivery.path);
    if (endpoint === undefined || t === null) {
      unreadable++;
      continue;
    }
    const others = t.links.filter((link) => {
      const owner = linkOwners.get(link.id);
      return ownerOfSlug(link.slug) !== endpoint.account || (owner !== undefined && owner !== endpoint.account);
    });
    if (others.length > 0) {
      foreign++;
      foreignExamples.add(`${delivery.path} told of ${others[0]!.slug}`);
    }
    if (!endpoint.events.includes(t.type)) unsubscribed++;
    if (!verifies(endpoint.secret, delivery)) unsigned++;
  }
  check(
    "no endpoint told of another account's link",
    foreign === 0 && unreadable === 0,
    `${foreign} of ${e.received.length} requests named a link of another account, ` +
      `${unreadable} were not a message to a known endpoint${foreignExamples.text()}`,
  );
  check(
    'no endpoint sent an event type it did not subscribe to',
    unsubscribed === 0,
    `${unsubscribed} of ${e.received.length} requests`,
  );
  check(
    "every signature verifies with its endpoint's secret",
    unsigned === 0,
    `${unsigned} of ${e.received.length} requests did not (or their timestamp was over ${TIMESTAMP_TOLERANCE_S} s off)`,
  );

  // One message, one id: every copy of a message has its webhook-id and body, and a link event has one id.
  const bodiesOf = new Map<string, Set<string>>();
  const idsOf = new Map<string, Set<string>>();
  const okCopies = new Map<string, number>();
  const clickMessages = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, key: string, value: string) =>
    map.set(key, (map.get(key) ?? new Set()).add(value));
  for (const { delivery, told: t } of told) {
    const id = delivery.headers['webhook-id'] ?? '';
    add(bodiesOf, `${delivery.path} ${id}`, delivery.body);
    if (t?.key !== undefined) add(idsOf, `${delivery.path} ${t.key}`, id);
    if (!ok(delivery)) continue;
    okCopies.set(`${delivery.path} ${id}`, (okCopies.get(`${delivery.path} ${id}`) ?? 0) + 1);
    for (const click of t?.clicks ?? []) add(clickMessages, `${delivery.path} ${click.eventId}`, id);
  }
  const idsWithTwoBodies = [...bodiesOf.values()].filter((bodies) => bodies.size > 1).length;
  const eventsWithTwoIds = [...idsOf.values()].filter((ids) => ids.size > 1).length;
  check(
    'every copy of a message carries the same webhook-id and body',
    idsWithTwoBodies === 0 && eventsWithTwoIds === 0,
    `${eventsWithTwoIds} link events sent under more than one webhook-id, ${idsWithTwoBodies} webhook-ids with more than one body`,
  );

  // A link's next event goes out once the one before it was delivered: first 2xx copies in version order.
  const versionsAt = new Map<string, { version: number; at: number }[]>();
  for (const { delivery, told: t } of told) {
    if (!ok(delivery) || t?.linkId === undefined || t.version === undefined) continue;
    const key = `${delivery.path} ${t.linkId}`;
    const versions = versionsAt.get(key) ?? [];
    const known = versions.find((v) => v.version === t.version);
    if (known) known.at = Math.min(known.at, delivery.at);
    else versions.push({ version: t.version, at: delivery.at });
    versionsAt.set(key, versions);
  }
  const outOfOrder = [...versionsAt.values()].filter((versions) => {
    const byTime = [...versions].sort((a, b) => a.at - b.at || a.version - b.version).map((v) => v.version);
    return byTime.some((version, i) => i > 0 && version < byTime[i - 1]!);
  }).length;
  check(
    "a link's events delivered in order at each endpoint",
    outOfOrder === 0,
    `${outOfOrder} of ${versionsAt.size} links' events first delivered out of version order`,
  );

  const figures: WebhookFigures = {
    linkEvents: e.acknowledged.length,
    clicks: e.clicks.reduce((sum, c) => sum + c.redirected, 0),
    eventDeliveriesDue: due,
    eventDeliveriesInTime: inTime,
    eventDeliveriesAfterReturn: afterReturn,
    clickDeliveriesDue: clicksDue,
    clickDeliveriesInTime: clicksInTime,
    requests: e.received.length,
    answeredOk: e.received.filter(ok).length,
    duplicates: [...okCopies.values()].reduce((sum, n) => sum + n - 1, 0),
    clicksInAnotherBatch: [...clickMessages.values()].reduce((sum, ids) => sum + ids.size - 1, 0),
    drainedMsAfterReturn: neverDelivered ? null : lastDue - e.receiverBackAt,
  };
  return { checks, figures };
}
