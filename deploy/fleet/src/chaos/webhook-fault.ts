import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { createAccountWithKey } from '@shortlink/accounts';
import { clearReceived, readReceived, startWebhookReceiver, type RunningProcess } from '@shortlink/testing';
import type { Fleet } from '../fleet';
import { apiCaller, type ApiAnswer } from './api-caller';
import { BROWSER_AGENTS } from './browser-agents';
import type { Fault, FaultContext } from './faults';
import {
  judgeWebhooks,
  type AcknowledgedLinkEvent,
  type WebhookEndpoint,
  type WebhookEvidence,
} from './webhook-verdict';

/**
 * The chaos fleet's WEBHOOKS_RETRY_SCHEDULE: quick first retries, then every 20 s (±20 %) for 5½ minutes. The 20 s
 * ceiling bounds how long a message failed through the receiver's outage waits once it is back; the standard
 * schedule (5 s, then 5 min, 30 min…) would hold most of them for minutes, or for hours.
 */
export const CHAOS_WEBHOOK_RETRY_SCHEDULE = ['1', '2', '5', '10', ...Array<string>(16).fill('20')].join(',');

/** Every delivery due must be answered 2xx this long after the receiver is back at most. */
export const WEBHOOK_DEADLINE_MS = 120_000;
const RECEIVER_OUTAGE_MS = 60_000;
const DISPATCHER_DOWN_MS = 5000;
/**
 * The share of requests a `…/flaky` endpoint answers 500. At 10 %, five failures in a row of one message after
 * the outage (about 2 minutes of 20 s retries) happen about once in 10⁵ messages.
 */
const FLAKY_FAIL_RATE = 0.1;
/** Links each account creates a second, each then clicked, changed twice, and every other one deleted. */
const LINKS_PER_SECOND = 1;
const ALL_EVENTS = ['link.created', 'link.updated', 'link.deleted', 'link.clicked'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Account {
  name: string;
  key: string;
  slugPrefix: string;
}

/** What the accounts' own requests got back. */
interface WebhookTraffic {
  acknowledged: AcknowledgedLinkEvent[];
  clicks: Map<string, { account: string; linkId: string; redirected: number }>;
  /** Requests that got no definite answer: their event may have happened, or not. */
  unanswered: number;
  createsGivenUp: number;
}

type Api = (
  account: Account,
  method: 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  idempotencyKey?: string,
) => Promise<ApiAnswer | null>;

/** The account's request, or null when it got no answer or no JSON: the phase asks again or counts it. */
function apiOf(http: HttpPool): Api {
  const call = apiCaller(http);
  return (account, method, path, body, idempotencyKey) =>
    call(account.key, method, path, body, idempotencyKey).catch(() => null);
}

/** One link's life: created (under an Idempotency-Key, asked again until answered), clicked, changed twice, maybe deleted. */
async function linkLife(http: HttpPool, api: Api, account: Account, n: number, traffic: WebhookTraffic) {
  const slug = `${account.slugPrefix}${n}`;
  const idempotencyKey = randomUUID();
  let linkId: string | undefined;
  for (const giveUpAt = Date.now() + 30_000; linkId === undefined && Date.now() < giveUpAt;) {
    const answer = await api(
      account,
      'POST',
      '/api/v1/links',
      { url: `https://example.com/webhooks/${slug}`, customSlug: slug },
      idempotencyKey,
    );
    if (answer?.status === 201) linkId = String(answer.body.id);
    else await sleep(500);
  }
  if (linkId === undefined) return void traffic.createsGivenUp++;
  traffic.acknowledged.push({ account: account.name, type: 'link.created', linkId });

  const clicked = await http
    .request({ method: 'GET', path: `/${slug}`, headers: { 'user-agent': BROWSER_AGENTS[n % BROWSER_AGENTS.length] } })
    .then(async (res) => {
      await res.body.dump();
      return res.statusCode === 302;
    })
    .catch(() => false);
  if (clicked) traffic.clicks.set(linkId, { account: account.name, linkId, redirected: 1 });

  for (const change of [1, 2]) {
    const destinationUrl = `https://example.com/webhooks/${slug}/changed-${change}`;
    const answer = await api(account, 'PATCH', `/api/v1/links/${slug}`, { url: destinationUrl });
    if (answer?.status === 200)
      traffic.acknowledged.push({ account: account.name, type: 'link.updated', linkId, destinationUrl });
    else traffic.unanswered++;
  }
  if (n % 2 === 0) {
    const answer = await api(account, 'DELETE', `/api/v1/links/${slug}`);
    if (answer?.status === 204) traffic.acknowledged.push({ account: account.name, type: 'link.deleted', linkId });
    else traffic.unanswered++;
  }
}

/** Each account's links, `LINKS_PER_SECOND`, until stopped; resolves once every life started has ended. */
function driveLinks(http: HttpPool, accounts: readonly Account[], traffic: WebhookTraffic): () => Promise<void> {
  const api = apiOf(http);
  const lives: Promise<void>[] = [];
  let n = 0;
  const timer = setInterval(() => {
    n++;
    for (const account of accounts) lives.push(linkLife(http, api, account, n, traffic));
  }, 1000 / LINKS_PER_SECOND);
  return async () => {
    clearInterval(timer);
    await Promise.all(lives);
  };
}

/** The endpoints of each account: one flaky taking every event, one plain taking all but changes. */
async function createEndpoints(http: HttpPool, accounts: readonly Account[], origin: string) {
  const api = apiOf(http);
  const endpoints: WebhookEndpoint[] = [];
  for (const account of accounts) {
    for (const [kind, events] of [
      ['flaky', ALL_EVENTS],
      ['plain', ALL_EVENTS.filter((e) => e !== 'link.updated')],
    ] as const) {
      const path = `/${account.name}/${kind}`;
      const answer = await api(account, 'POST', '/api/v1/webhooks', { url: `${origin}${path}`, events });
      if (answer?.status !== 201) {
        throw new Error(
          `creating the webhook ${path} was answered ${answer?.status ?? 'nothing'} ${JSON.stringify(answer?.body)}: ` +
            'a fleet started by `npm run fleet:up` refuses loopback webhooks; `npm run fleet:down`, then `npm run chaos`',
        );
      }
      endpoints.push({ path, account: account.name, secret: String(answer.body.secret), events });
    }
  }
  return endpoints;
}

/** kill -9 of the dispatcher, started again by the supervisor after a pause. */
async function killDispatcher(fleet: Fleet, log: (message: string) => void): Promise<number> {
  log('webhook-dispatcher: kill -9');
  await fleet.supervisor.kill('webhook-dispatcher');
  await sleep(DISPATCHER_DOWN_MS);
  const starting = Date.now();
  await fleet.start('webhook-dispatcher');
  return Date.now() - starting;
}

/**
 * Two accounts with two endpoints each on a receiver process, and their links created, clicked, changed and
 * deleted throughout; the dispatcher killed (-9) mid-delivery and started again; the receiver down for 60 s, the
 * dispatcher killed again meanwhile; then waits (up to WEBHOOK_DEADLINE_MS) for every delivery due.
 */
async function run({ fleet, log }: FaultContext) {
  const { options, entryUrl } = fleet.layout;
  if (!options.localWebhooks)
    throw new Error('the webhook phase needs a fleet with localWebhooks (npm run chaos sets it)');
  const logFile = join(fleet.supervisor.runDir, 'logs', 'webhook-receiver.ndjson');
  clearReceived(logFile);
  const startReceiver = (port?: number) =>
    startWebhookReceiver({ root: options.root, logFile, failRate: FLAKY_FAIL_RATE, bodies: true, port });
  let receiver: RunningProcess | undefined = await startReceiver();
  const port = Number(new URL(receiver.url).port);
  const http = new HttpPool(entryUrl, { connections: 16 });
  let stopLinks: (() => Promise<void>) | undefined;
  try {
    const runId = randomBytes(3).toString('hex');
    const db = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
    const accounts: Account[] = [];
    try {
      for (const name of ['a', 'b']) {
        const { key } = await createAccountWithKey(db, {
          accountName: `chaos-webhooks-${runId}-${name}`,
          keyName: 'chaos',
          plan: 'pro',
        });
        accounts.push({ name, key, slugPrefix: `wh-${runId}-${name}-` });
      }
    } finally {
      await db.end();
    }
    const endpoints = await createEndpoints(http, accounts, receiver.url);
    const traffic: WebhookTraffic = { acknowledged: [], clicks: new Map(), unanswered: 0, createsGivenUp: 0 };
    stopLinks = driveLinks(http, accounts, traffic);

    await sleep(10_000);
    const firstRestartMs = await killDispatcher(fleet, log);
    await sleep(10_000);
    log('webhook receiver: killed for 60 s');
    await receiver.kill();
    receiver = undefined;
    const outage = Date.now();
    await sleep(20_000);
    // The outage lasts its 60 s however long the dispatcher takes to start again (15 to 40 s on a busy machine).
    const secondRestart = killDispatcher(fleet, log);
    secondRestart.catch(() => undefined); // awaited below; a receiver that fails to start must not leave it unheard
    await sleep(Math.max(0, outage + RECEIVER_OUTAGE_MS - Date.now()));
    receiver = await startReceiver(port);
    const receiverBackAt = Date.now();
    const secondRestartMs = await secondRestart;
    log(`webhook receiver: back on port ${port} after ${Math.round((receiverBackAt - outage) / 1000)} s`);
    await sleep(10_000);
    await stopLinks();
    stopLinks = undefined;

    const evidence = (): WebhookEvidence => ({
      endpoints,
      slugPrefixes: Object.fromEntries(accounts.map((a) => [a.name, a.slugPrefix])),
      acknowledged: traffic.acknowledged,
      clicks: [...traffic.clicks.values()],
      received: readReceived(logFile),
      receiverBackAt,
      deadlineMs: WEBHOOK_DEADLINE_MS,
    });
    log('webhooks: waiting for every delivery due');
    for (;;) {
      const { figures: f } = judgeWebhooks(evidence());
      if (f.eventDeliveriesInTime === f.eventDeliveriesDue && f.clickDeliveriesInTime === f.clickDeliveriesDue) break;
      if (Date.now() > receiverBackAt + WEBHOOK_DEADLINE_MS) break;
      await sleep(2000);
    }
    // Copies and strays still under way are judged too.
    await sleep(5000);
    await receiver.stop();
    receiver = undefined;
    return {
      notes: {
        dispatcherReadyAfterFirstKillMs: firstRestartMs + DISPATCHER_DOWN_MS,
        dispatcherReadyAfterSecondKillMs: secondRestartMs + DISPATCHER_DOWN_MS,
        webhookRequestsUnanswered: traffic.unanswered,
        webhookCreatesGivenUp: traffic.createsGivenUp,
      },
      webhooks: evidence(),
    };
  } finally {
    await stopLinks?.();
    await receiver?.kill();
    await http.close();
  }
}

export const WEBHOOK_DISPATCHER_KILL: Fault = {
  name: 'webhook-dispatcher-kill',
  description:
    "two accounts' links created, clicked, changed and deleted with webhooks on a receiver; kill -9 of the dispatcher " +
    '(restarted after 5 s), then the receiver down for 60 s with a second kill -9 of the dispatcher 20 s into it',
  run,
};
