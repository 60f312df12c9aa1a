import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEvent, type ClickRecorded, type LinkCreated, type LinkUpdated } from '@shortlink/events';
import { appendEvents } from '@shortlink/event-log';
import { clickRecords, eventLinesOf } from '@shortlink/service-redirector';
import { readReceived, startWebhookReceiver, type ReceivedDelivery } from '@shortlink/testing';
import { sealSecret } from '@shortlink/webhooks';
import { percentiles, round, sleep } from './measure';
import type { BenchStack } from './stack';
import { machineBusyMs, postgresBackendsCpuMs, processCpuMs } from './thread-cpu';

export interface WebhooksOptions {
  /** Accounts, each with `endpointsPerAccount` endpoints subscribed to every event type. */
  accounts: number;
  endpointsPerAccount: number;
  linksPerAccount: number;
  linkEventsPerSecond: number;
  clicksPerSecond: number;
  /** Each run: this long warming up (not measured), then this long measured. */
  warmUpSeconds: number;
  durationSeconds: number;
  /** Endpoints that never answer in the second run. */
  deadEndpoints: number;
  /** How long the healthy endpoints' queue may take to empty after the load, at most. */
  drainLimitSeconds: number;
}

/** One run's figures: its events' latency from the event's time to the receiver's receipt, at healthy endpoints. */
export interface WebhooksRun {
  /** Link events (link.created/updated): `occurredAt` → received. */
  links: { p50Ms: number; p99Ms: number; maxMs: number; deliveries: number };
  /** Click batches: the newest click's time (the payload's `timestamp`) → received; a batch closes 1 s after its first click. */
  clicks: { p50Ms: number; p99Ms: number; maxMs: number; deliveries: number };
  /** Deliveries answered 2xx a second while the load ran (warm-up left out), and what the load asked for. */
  deliveriesPerSecond: number;
  offeredDeliveriesPerSecond: number;
  /** Deliveries answered 2xx a second after the load stopped, while the backlog drained: the sending side alone. */
  drainDeliveriesPerSecond: number;
  /** Link-event deliveries owed to healthy endpoints that never arrived. */
  missing: number;
  /** How long after the load stopped the healthy endpoints' queue was empty (or the limit, with `backlog` left). */
  drainSeconds: number;
  backlog: number;
  producedLinkEventsPerSecond: number;
  producedClicksPerSecond: number;
  /**
   * CPU while the load ran (warm-up left out), in cores: the dispatcher process (all its threads), the receiver,
   * the Postgres backends of the bench's database, and the whole machine; and the dispatcher's CPU per delivery.
   */
  cpu: {
    dispatcher: number;
    receiver: number;
    postgres: number;
    /** This process: the load's producer and the reading of the queue. */
    bench: number;
    machine: number;
    dispatcherUsPerDelivery: number;
  };
}

export interface WebhooksResult {
  endpoints: number;
  accounts: number;
  linkEventsPerSecond: number;
  clicksPerSecond: number;
  deadEndpoints: number;
  healthy: WebhooksRun;
  dead: WebhooksRun;
  /** The healthy endpoints' link-event p99 with dead endpoints about, against the all-healthy run's. */
  p99Ratio: number;
  dispatcher: { concurrency: number; perEndpoint: number };
}

interface Account {
  id: string;
  endpoints: { id: string; path: string }[];
  links: { id: string; slug: string; version: number }[];
}

const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

/**
 * The real webhook dispatcher process on the local stack, its endpoints on a
 * receiver process (webhook-receiver.ts): link events and clicks produced
 * onto the topics at a steady rate, each delivery's latency read from the
 * receiver's log (its receipt time against the payload's event time). Run
 * twice: every endpoint healthy, then with some endpoints dead (they accept
 * the connection and never answer, the worst kind: each attempt holds its
 * slot until the 10 s timeout).
 */
export async function benchWebhooks(
  root: string,
  stack: BenchStack,
  options: WebhooksOptions,
): Promise<WebhooksResult> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-webhooks-'));
  const logFile = join(dir, 'received.ndjson');
  const receiver = await startWebhookReceiver({ root, logFile, bodies: false });
  const sealing = randomBytes(32);
  const accounts = await createEndpoints(stack, receiver.url, sealing, options);
  const endpoints = accounts.flatMap((a) => a.endpoints);
  // Every tenth endpoint dies in the second run: its account's other endpoints stay healthy beside it.
  const step = Math.max(1, Math.floor(endpoints.length / Math.max(1, options.deadEndpoints)));
  const dead = new Set(
    endpoints
      .filter((_, i) => i % step === 0)
      .slice(0, options.deadEndpoints)
      .map((e) => e.path),
  );
  const concurrency = 512;
  const perEndpoint = 8;
  const dispatcher = await stack.startEntry('services/webhook-dispatcher/dist/main.js', [], {
    WEBHOOKS_ALLOW_HTTP: 'true',
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOKS_ENCRYPTION_KEY: sealing.toString('base64'),
    WEBHOOKS_CONCURRENCY: String(concurrency),
    WEBHOOKS_PER_ENDPOINT_CONCURRENCY: String(perEndpoint),
  });
  try {
    const admin = stack.kafka.admin();
    await admin.connect();
    // Timing starts once the dispatcher holds its partitions, not while it joins.
    for (let i = 0; i < 300; i++) {
      if (await admin.groupIsActive(stack.names.groups.webhookDispatcher)) break;
      await sleep(100);
    }
    const partitions = (await admin.partitionOffsets(stack.names.topics.clicks)).length;
    await admin.disconnect();

    const pids = {
      dispatcher: dispatcher.pid,
      receiver: receiver.pid,
      database: new URL(stack.env.DATABASE_URL!).pathname.slice(1),
    };
    const healthy = await run(stack, accounts, { now: new Set(), later: dead }, partitions, logFile, options, pids);
    await stack.pool.query(`UPDATE webhooks SET url = url || '/dead' WHERE url LIKE '%/e/%' AND webhook_id = ANY($1)`, [
      endpoints.filter((e) => dead.has(e.path)).map((e) => e.id),
    ]);
    const withDead = await run(stack, accounts, { now: dead, later: dead }, partitions, logFile, options, pids);
    return {
      endpoints: endpoints.length,
      accounts: accounts.length,
      linkEventsPerSecond: options.linkEventsPerSecond,
      clicksPerSecond: options.clicksPerSecond,
      deadEndpoints: dead.size,
      healthy: healthy.run,
      dead: withDead.run,
      p99Ratio: round(withDead.comparable / healthy.comparable),
      dispatcher: { concurrency, perEndpoint },
    };
  } finally {
    await dispatcher.stop();
    await receiver.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Accounts with their endpoints (each a path of its own on the receiver), secrets and links. */
async function createEndpoints(
  stack: BenchStack,
  origin: string,
  sealing: Buffer,
  options: WebhooksOptions,
): Promise<Account[]> {
  const accounts: Account[] = Array.from({ length: options.accounts }, (_, a) => ({
    id: randomUUID(),
    endpoints: Array.from({ length: options.endpointsPerAccount }, (_, e) => ({
      id: randomUUID(),
      path: `/e/${a * options.endpointsPerAccount + e}`,
    })),
    links: Array.from({ length: options.linksPerAccount }, (_, l) => ({
      id: randomUUID(),
      slug: `wh${a}x${l}`,
      version: 0,
    })),
  }));
  const endpoints = accounts.flatMap((a) => a.endpoints.map((e) => ({ ...e, accountId: a.id })));
  await stack.pool.query(
    `INSERT INTO accounts (id, name, plan) SELECT id, 'webhooks-bench', 'pro' FROM unnest($1::uuid[]) AS t(id)`,
    [accounts.map((a) => a.id)],
  );
  // Created a minute ago: every event produced from now on is theirs.
  await stack.pool.query(
    `INSERT INTO webhooks (webhook_id, account_id, url, events, created_at)
     SELECT id, account_id, url, '{link.created,link.updated,link.deleted,link.clicked}', now() - interval '1 minute'
       FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS t(id, account_id, url)`,
    [endpoints.map((e) => e.id), endpoints.map((e) => e.accountId), endpoints.map((e) => origin + e.path)],
  );
  await stack.pool.query(
    `INSERT INTO webhook_secrets (webhook_id, sealed) SELECT * FROM unnest($1::uuid[], $2::text[])`,
    [
      endpoints.map((e) => e.id),
      endpoints.map(() => sealSecret(sealing, `whsec_${randomBytes(24).toString('base64')}`)),
    ],
  );
  return accounts;
}

/** Produces the load for warm-up + duration, waits for the healthy endpoints' queue to empty, reads the receipts. */
async function run(
  stack: BenchStack,
  accounts: Account[],
  /** The dead endpoints' paths in this run, and in the run with dead endpoints (left out of the comparison). */
  deadPaths: { now: ReadonlySet<string>; later: ReadonlySet<string> },
  partitions: number,
  logFile: string,
  options: WebhooksOptions,
  processes: { dispatcher: number; receiver: number; database: string },
): Promise<{ run: WebhooksRun; comparable: number }> {
  const dead = deadPaths.now;
  const producer = stack.kafka.producer();
  await producer.connect();
  // Link-major: taken in turn, events and clicks go round every account (each account's share of the rates).
  const links = (accounts[0]?.links ?? []).flatMap((_, l) =>
    accounts.flatMap((account) => (account.links[l] ? [{ account, link: account.links[l] }] : [])),
  );
  const visitors = Array.from({ length: 1000 }, () => randomBytes(32).toString('hex'));
  const started = Date.now();
  const measureFrom = started + options.warmUpSeconds * 1000;
  const until = measureFrom + options.durationSeconds * 1000;
  let linkEvents = 0;
  let clicks = 0;
  let nextLink = 0;
  /** Link-event deliveries owed to healthy endpoints, for the events produced in the measured window. */
  let owed = 0;

  // Each stream produces what its rate owes since the start, every 50 ms: a slow append is caught up, not dropped.
  const produceLinks = async () => {
    while (Date.now() < until) {
      const tick = Date.now();
      // At most 500 an append: a stream caught up after a slow append stays under the broker's request size.
      const due = Math.min(500, Math.floor(((tick - started) / 1000) * options.linkEventsPerSecond) - linkEvents);
      const occurredAt = new Date(tick).toISOString();
      const events = Array.from({ length: Math.max(0, due) }, () => {
        const { account, link } = links[nextLink++ % links.length]!;
        link.version++;
        if (tick >= measureFrom) owed += account.endpoints.filter((e) => !dead.has(e.path)).length;
        const meta = { eventId: randomUUID(), occurredAt };
        const base = { linkId: link.id, accountId: account.id, slug: link.slug };
        return link.version === 1
          ? createEvent<LinkCreated>(
              'LinkCreated',
              1,
              { ...base, destinationUrl: `https://example.com/${link.slug}`, tag: null },
              meta,
            )
          : createEvent<LinkUpdated>(
              'LinkUpdated',
              1,
              {
                ...base,
                version: link.version,
                destinationUrl: `https://example.com/${link.slug}/${link.version}`,
                tag: null,
                changedFields: ['destinationUrl'],
              },
              meta,
            );
      });
      linkEvents += events.length;
      if (events.length > 0) await appendEvents(producer, stack.names.topics.links, events, (e) => e.data.slug);
      if (due < 500) await sleep(Math.max(0, 50 - (Date.now() - tick)));
    }
  };
  const produceClicks = async () => {
    while (Date.now() < until) {
      const tick = Date.now();
      const due = Math.min(5000, Math.floor(((tick - started) / 1000) * options.clicksPerSecond) - clicks);
      const occurredAt = new Date(tick).toISOString();
      const events = Array.from({ length: Math.max(0, due) }, (_, i) => {
        const { account, link } = links[(clicks + i) % links.length]!;
        return createEvent<ClickRecorded>(
          'ClickRecorded',
          1,
          {
            linkId: link.id,
            accountId: account.id,
            slug: link.slug,
            clickedAt: tick,
            visitorHash: visitors[(clicks + i) % visitors.length]!,
            referrer: 'Direct',
            country: 'DE',
            userAgent: UA,
          },
          { eventId: randomUUID(), occurredAt },
        );
      });
      clicks += events.length;
      if (events.length > 0) {
        await producer.append(stack.names.topics.clicks, clickRecords(eventLinesOf(events), partitions), {
          compression: 'lz4',
        });
      }
      if (due < 5000) await sleep(Math.max(0, 50 - (Date.now() - tick)));
    }
  };
  // The CPU the load cost, read as the measured window opens and once the load stops.
  const cpuNow = () => ({
    dispatcher: processCpuMs(processes.dispatcher),
    receiver: processCpuMs(processes.receiver),
    postgres: postgresBackendsCpuMs(processes.database),
    bench: processCpuMs(process.pid),
    machine: machineBusyMs(),
    at: Date.now(),
  });
  let cpuFrom: ReturnType<typeof cpuNow> | undefined;
  const cpuTimer = setTimeout(() => (cpuFrom = cpuNow()), Math.max(0, measureFrom - Date.now()));
  await Promise.all([produceLinks(), produceClicks()]);
  const produced = Date.now();
  clearTimeout(cpuTimer);
  const cpuTo = cpuNow();
  await producer.disconnect();

  // The healthy endpoints' queue empties (the dead endpoints' messages wait for their retries), or the run gives up.
  const healthyLeft = async (limit: number) => {
    const { rows } = await stack.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM webhook_deliveries d JOIN webhooks w USING (webhook_id)
                                   WHERE w.url NOT LIKE '%/dead' LIMIT $1) q`,
      [limit],
    );
    return Number(rows[0]?.n ?? 0);
  };
  let drained = Date.now();
  while (drained - produced < options.drainLimitSeconds * 1000) {
    const some = await healthyLeft(1);
    drained = Date.now();
    if (some === 0) break;
    await sleep(500);
  }
  const left = await healthyLeft(10_000_000);
  // The last answers are logged as they are sent.
  await sleep(500);

  const received = readReceived(logFile).filter((r) => r.status >= 200 && r.status < 300);
  const inWindow = (r: ReceivedDelivery) => {
    const at = Date.parse(r.timestamp);
    return at >= measureFrom && at < until;
  };
  const firstSeen = new Set<string>();
  const linkLatency: number[] = [];
  const clickLatency: number[] = [];
  const comparableLatency: number[] = [];
  let answeredInWindow = 0;
  let answeredAfter = 0;
  for (const r of received) {
    if (r.at >= measureFrom && r.at < until) answeredInWindow++;
    if (r.at >= produced && r.at < drained) answeredAfter++;
    if (!inWindow(r)) continue;
    // At least once: a message received twice counts once, at its first receipt.
    const key = `${r.path} ${r.headers['webhook-id']}`;
    if (firstSeen.has(key)) continue;
    firstSeen.add(key);
    const latency = r.at - Date.parse(r.timestamp);
    if (r.type === 'link.clicked') clickLatency.push(latency);
    else {
      linkLatency.push(latency);
      // Both runs are compared over the same endpoints: those that stay healthy in the second.
      if (!deadPaths.later.has(r.path)) comparableLatency.push(latency);
    }
  }
  const link = percentiles(linkLatency);
  const click = percentiles(clickLatency);
  const cpuSeconds = cpuFrom ? (cpuTo.at - cpuFrom.at) / 1000 : NaN;
  const cores = (ms: number) => round(ms / 1000 / cpuSeconds);
  const postgresMs = Object.entries(cpuTo.postgres).reduce(
    (sum, [pid, ms]) => sum + ms - (cpuFrom?.postgres[pid] ?? 0),
    0,
  );
  const dispatcherMs = cpuTo.dispatcher - (cpuFrom?.dispatcher ?? NaN);
  const seconds = options.durationSeconds;
  const endpointsPerAccount = accounts[0]?.endpoints.length ?? 0;
  const healthyShare = 1 - dead.size / (accounts.length * endpointsPerAccount);
  // A click batch closes at 100 clicks or 1 s: an account's clicks a second, in batches of at most 100.
  const clicksPerAccount = options.clicksPerSecond / accounts.length;
  const batchesPerSecond = accounts.length * Math.max(1, Math.ceil(clicksPerAccount / 100));
  const offered = (options.linkEventsPerSecond + batchesPerSecond) * endpointsPerAccount * healthyShare;
  return {
    run: {
      links: { p50Ms: link.p50, p99Ms: link.p99, maxMs: link.max, deliveries: link.n },
      clicks: { p50Ms: click.p50, p99Ms: click.p99, maxMs: click.max, deliveries: click.n },
      deliveriesPerSecond: round(answeredInWindow / seconds),
      offeredDeliveriesPerSecond: round(offered),
      drainDeliveriesPerSecond: drained > produced ? round(answeredAfter / ((drained - produced) / 1000)) : 0,
      missing: Math.max(0, owed - link.n),
      drainSeconds: round((drained - produced) / 1000),
      backlog: left,
      producedLinkEventsPerSecond: round(linkEvents / ((produced - started) / 1000)),
      producedClicksPerSecond: round(clicks / ((produced - started) / 1000)),
      cpu: {
        dispatcher: cores(dispatcherMs),
        receiver: cores(cpuTo.receiver - (cpuFrom?.receiver ?? NaN)),
        postgres: cores(postgresMs),
        bench: cores(cpuTo.bench - (cpuFrom?.bench ?? NaN)),
        machine: cores(cpuTo.machine - (cpuFrom?.machine ?? NaN)),
        dispatcherUsPerDelivery: round((dispatcherMs * 1000) / Math.max(1, answeredInWindow)),
      },
    },
    comparable: percentiles(comparableLatency).p99,
  };
}
