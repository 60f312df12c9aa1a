import { randomUUID } from 'node:crypto';
import { mkdirSync, openSync, readSync, closeSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { createAccountWithKey } from '@shortlink/accounts';
import { createClickHouse } from '@shortlink/clickhouse';
import { fleetUp, type Fleet } from '../fleet';
import { apiCaller } from './api-caller';
import { summariseEntryPointLog } from './entry-point-log';
import {
  calibrationRates,
  judgeStep,
  offeredRate,
  ratesOf,
  type Calibration,
  type CalibrationStep,
  type OfferedRates,
  type TrafficMix,
} from './calibration';
import { BROWSER_AGENTS, CHECKER_AGENT } from './browser-agents';
import type { Fault } from './faults';
import type { WebhookEvidence } from './webhook-verdict';
import { watchMachineBusy } from './machine-busy';
import { judgePhase, type PhaseEvidence } from './phase-verdict';
import type { ChaosReport } from './chaos-report';
import { Traffic, type CreateTally, type PhaseTraffic, type RedirectTally, type TargetLink } from './traffic';
import { mayShow, type ChangeTally } from './change-traffic';

export interface ChaosOptions {
  faults: readonly Fault[];
  /** The redirect rate offered, unless `calibrate` is given: then a fraction of what the fleet sustains here. */
  redirectsPerSecond: number;
  calibrate?: CalibrationOptions;
  /** Creates and changes a second, unless the mix scales them with the redirects. */
  createsPerSecond: number;
  /** `PATCH`es of the links the creates got back, each read back once answered 200 (change-traffic.ts). */
  changesPerSecond: number;
  /** Creates and changes as a share of the redirects, in the calibration's steps and the rates offered. */
  mix?: TrafficMix;
  /** Links each phase's redirects spread over. */
  linksPerPhase: number;
  /** Traffic before each fault and after its recovery, in ms. */
  steadyMs: number;
  resultsDir: string;
  log: (message: string) => void;
}

interface Phase {
  fault: Fault;
  links: { id: string; slug: string; url: string }[];
  probe: { id: string; slug: string; url: string };
  probeRedirects: number;
  notes: Record<string, number | string>;
  webhooks?: WebhookEvidence;
  freshWithinMsOfEnd: number | null;
  /** performance.now() as the fault began and as it was undone. */
  faultStartedAt?: number;
  faultEndedAt?: number;
  redirects?: RedirectTally;
  creates?: CreateTally;
  changes?: ChangeTally;
}

/** How the offered redirect rate is found (calibration.ts). */
export interface CalibrationOptions {
  /** The share of the sustained rate offered. */
  fraction: number;
  fromPerSecond: number;
  maxPerSecond: number;
  /** How long each rate is offered before a click's freshness is taken. */
  stepMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const median = (values: readonly number[]): number | null => {
  if (values.length === 0) return null;
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
};

/**
 * Traffic before the first fault: long enough for this client to open its
 * connections (a second or two at 2,000/s, during which the fleet stalls).
 */
const WARM_UP_MS = 10_000;

/** Waits for a phase's last answers, then keeps its tallies. */
async function closePhase(phase: Phase, traffic: PhaseTraffic): Promise<void> {
  await traffic.settled();
  phase.redirects = traffic.redirects;
  phase.creates = traffic.creates;
  phase.changes = traffic.changes;
}

const p99 = (values: number[]) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]! * 10) / 10;
};

/**
 * Drives steady traffic through the fleet's entry point and injects the
 * faults one after another, each on its own links so its clicks can be
 * counted apart; then checks that every acknowledged link redirects and that
 * ClickHouse holds each phase's clicks exactly once (phase-verdict.ts).
 */
export async function runChaos(fleet: Fleet, options: ChaosOptions): Promise<ChaosReport> {
  const { log } = options;
  const started = Date.now();
  await fleetUp(fleet, log);
  // The entry point logs only abnormal requests; what this run adds to its log is read at the end.
  const entryLog = fleet.supervisor.logFile('entry');
  const entryLogFrom = sizeOf(entryLog);
  const db = new pg.Pool({ connectionString: fleet.layout.options.databaseUrl, max: 2 });
  const { key } = await createAccountWithKey(db, { accountName: `chaos-${started}`, keyName: 'chaos', plan: 'pro' });
  await db.end();
  const http = new HttpPool(fleet.layout.entryUrl, { connections: 16 });
  const clickhouse = createClickHouse({
    url: fleet.layout.clickhouse.url,
    database: 'shortlink',
    username: 'default',
    password: '',
    applicationName: 'chaos',
  });
  const call = apiCaller(http, CHECKER_AGENT);
  const api = (method: 'GET' | 'POST', path: string, body?: unknown, idempotencyKey?: string) =>
    call(key, method, path, body, idempotencyKey);
  const redirectsTo = async (slug: string, agent = CHECKER_AGENT) => {
    const res = await http.request({ method: 'GET', path: `/${slug}`, headers: { 'user-agent': agent } });
    await res.body.dump();
    return res.statusCode === 302 ? String(res.headers.location) : null;
  };
  /** As an integrator creates: an answer lost with its connection is asked again under the same key. */
  const createLink = async (url: string) => {
    const idempotencyKey = randomUUID();
    for (;;) {
      const answer = await api('POST', '/api/v1/links', { url, tag: 'chaos-phase' }, idempotencyKey).catch(() => null);
      if (answer?.status === 201) return { id: String(answer.body.id), slug: String(answer.body.slug), url };
      await sleep(500);
    }
  };
  const totalClicks = async (slug: string) => {
    const { status, body } = await api('GET', `/api/v1/links/${slug}/analytics?range=all`);
    return status === 200 ? Number(body.totalClicks) : -1;
  };

  /** One counted click on the probe, timed until analytics shows it (null: not within 10 s). */
  const clickFreshness = async (probe: { slug: string }, onRedirected: () => void): Promise<number | null> => {
    const before = await totalClicks(probe.slug).catch(() => -1);
    if (before < 0) return null;
    const clicked = performance.now();
    if ((await redirectsTo(probe.slug, BROWSER_AGENTS[0]).catch(() => null)) === null) return null;
    onRedirected();
    while (performance.now() - clicked < 10_000) {
      if ((await totalClicks(probe.slug).catch(() => -1)) > before) return performance.now() - clicked;
      await sleep(100);
    }
    return null;
  };
  const freshness = (phase: Phase) => clickFreshness(phase.probe, () => phase.probeRedirects++);
  const linksReady = async (links: readonly { slug: string; url: string }[]) => {
    for (const link of links) while ((await redirectsTo(link.slug).catch(() => null)) !== link.url) await sleep(100);
  };

  const mix = options.mix ?? { createsPerRedirect: null, changesPerRedirect: null };
  const fixed = { createsPerSecond: options.createsPerSecond, changesPerSecond: options.changesPerSecond };
  const at = (redirectsPerSecond: number) => ratesOf(redirectsPerSecond, mix, fixed);
  // A calibration warms up at its first rate, then tries the others on the same connections.
  let rates: OfferedRates = at(options.calibrate?.fromPerSecond ?? options.redirectsPerSecond);
  const traffic = new Traffic(fleet.layout.entryUrl, key, { ...rates });

  let calibration: Calibration | undefined;
  /**
   * Each rate in turn on the running traffic, for `stepMs`, then a click's freshness under it; stops at the first
   * step that misses a bound, with the pipeline left to drain a moment between steps.
   */
  const calibrate = async (
    running: Traffic,
    settings: CalibrationOptions,
    links: readonly TargetLink[],
    /** A click on a link no traffic goes to, timed until the analytics show it. */
    fresh: () => Promise<number | null>,
  ): Promise<Calibration> => {
    const steps: CalibrationStep[] = [];
    for (const rate of calibrationRates(settings.fromPerSecond, settings.maxPerSecond)) {
      const stepRates = at(rate);
      running.setRates(stepRates);
      const busy: number[] = [];
      const stopWatching = watchMachineBusy((percent) => busy.push(percent));
      running.nextPhase(links);
      await sleep(settings.stepMs);
      // Taken under the step's load: the click must get through what the pipeline holds then.
      const freshMs = await fresh();
      const ended = running.nextPhase(links);
      stopWatching();
      await ended.settled();
      const { redirects, creates } = ended;
      const step = judgeStep(
        stepRates,
        { ...redirects, p99Ms: p99(redirects.latenciesMs) },
        { slowestMs: creates.slowestMs, notCreated: creates.sent + creates.notSent - creates.acknowledged.length },
        freshMs === null ? null : Math.round(freshMs),
        median(busy),
      );
      steps.push(step);
      log(
        `calibration: ${rate}/s (${step.createsPerSecond} creates/s, ${step.changesPerSecond} changes/s) ${step.ok ? 'held' : `missed: ${step.missed.join('; ')}`} ` +
          `(p99 ${step.p99Ms} ms, fresh ${step.freshMs ?? 'never'} ms, machine ${step.machineBusyPercent ?? '?'} % busy)`,
      );
      if (!step.ok) break;
    }
    const chosen = offeredRate(steps, settings.fraction, mix, fixed);
    log(`calibration: ${chosen.why}`);
    return chosen;
  };

  const phases: Phase[] = [];
  traffic.start();
  const stopWatchingMachine = watchMachineBusy((percent) => traffic.noteMachineBusy(percent));
  try {
    // Links of its own, never judged: the first fault's phase does not measure this client opening its connections.
    log(`warming up: ${WARM_UP_MS / 1000} s of traffic`);
    const warmUp = [];
    for (let i = 0; i < 10; i++) warmUp.push(await createLink(`https://example.com/warm-up/${i}?t=${Date.now()}`));
    await linksReady(warmUp);
    traffic.nextPhase(warmUp);
    await sleep(WARM_UP_MS);
    if (options.calibrate) {
      const probe = await createLink(`https://example.com/calibration/probe?t=${Date.now()}`);
      await linksReady([probe]);
      const fresh = () => clickFreshness(probe, () => undefined);
      /** Until a click is fresh within 2 s (at most 2 minutes): the pipeline holds nothing from before. */
      const settled = async () => {
        for (const until = performance.now() + 120_000; performance.now() < until; await sleep(1000)) {
          const took = await fresh();
          if (took !== null && took < 2000) return;
        }
      };
      // A fleet just started (its consumers joining their groups, its first batches) is not yet what it sustains.
      await settled();
      calibration = await calibrate(traffic, options.calibrate, warmUp, fresh);
      rates = calibration.offered;
      traffic.setRates(rates);
      traffic.nextPhase(warmUp);
      // What the last step left in the pipeline is drained before the first fault is judged on it.
      await settled();
    }
    for (const fault of options.faults) {
      log(`${fault.name}: preparing ${options.linksPerPhase} links`);
      const links = [];
      for (let i = 0; i < options.linksPerPhase; i++) {
        links.push(await createLink(`https://example.com/${fault.name}/${i}?t=${Date.now()}`));
      }
      const probe = await createLink(`https://example.com/${fault.name}/probe`);
      await linksReady([...links, probe]);
      const phase: Phase = { fault, links, probe, probeRedirects: 0, notes: {}, freshWithinMsOfEnd: null };
      const ended = traffic.nextPhase(links satisfies TargetLink[]);
      const previous = phases[phases.length - 1];
      // The previous phase's last requests are answered before this fault starts: none of them can meet it.
      if (previous) await closePhase(previous, ended);
      phases.push(phase);
      await sleep(options.steadyMs);
      log(`${fault.name}: ${fault.description}`);
      phase.faultStartedAt = performance.now();
      const outcome = await fault.run({ fleet, log });
      phase.notes = outcome.notes ?? {};
      phase.webhooks = outcome.webhooks;
      const end = performance.now();
      phase.faultEndedAt = end;
      log(`${fault.name}: recovered; measuring freshness`);
      while (performance.now() - end < 120_000) {
        const took = await freshness(phase);
        if (took !== null && took < 2000) {
          phase.freshWithinMsOfEnd = performance.now() - end;
          break;
        }
        await sleep(500);
      }
      await sleep(options.steadyMs);
    }
    const last = traffic.nextPhase([]);
    const previous = phases[phases.length - 1];
    if (previous) await closePhase(previous, last);
  } finally {
    stopWatchingMachine();
    await traffic.close();
  }

  log('checking that every acknowledged link redirects, and to its last acknowledged change');
  const redirecting = new Map<Phase, number>();
  const changesHeld = new Map<Phase, ChangesHeld>();
  for (const phase of phases) {
    let ok = 0;
    const held: ChangesHeld = { links: 0, redirectsHeld: 0, readsHeld: 0, projected: 0 };
    for (const link of phase.creates?.acknowledged ?? []) {
      const location = await redirectsTo(link.slug).catch(() => null);
      const changed = phase.changes?.links.get(link.slug);
      if (changed === undefined) {
        if (location === link.url) ok++;
        continue;
      }
      held.links++;
      if (mayShow(changed, location)) {
        ok++;
        held.redirectsHeld++;
      }
      const read = await api('GET', `/api/v1/links/${link.slug}`).catch(() => null);
      // The read and the redirect agree: both come from the write model's row.
      if (read?.status === 200 && read.body.destinationUrl === location && mayShow(changed, location)) held.readsHeld++;
    }
    changesHeld.set(phase, held);
    redirecting.set(phase, ok);
  }
  await waitForProjectedChanges(fleet, phases, changesHeld, log);

  log('waiting for every click to reach ClickHouse');
  const counts = async (phase: Phase) => {
    const ids = [...phase.links, phase.probe].map((l) => l.id);
    const result = await clickhouse.query({
      query: 'SELECT count() AS rows, uniqExact(event_id) AS events FROM clicks WHERE link_id IN {ids:Array(UUID)}',
      query_params: { ids },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ rows: number; events: number }>();
    return { rows: Number(row?.rows ?? 0), events: Number(row?.events ?? 0) };
  };
  const expected = (phase: Phase) => (phase.redirects?.redirected ?? 0) + phase.probeRedirects;
  let settled: Map<Phase, { rows: number; events: number }> = new Map();
  let stableSince = Date.now();
  let previousTotal = -1;
  for (const deadline = Date.now() + 180_000; Date.now() < deadline;) {
    settled = new Map(await Promise.all(phases.map(async (p) => [p, await counts(p)] as const)));
    const total = [...settled.values()].reduce((sum, c) => sum + c.rows, 0);
    if (total !== previousTotal) stableSince = Date.now();
    previousTotal = total;
    const complete = phases.every((p) => (settled.get(p)?.events ?? 0) >= expected(p));
    // Complete, or nothing more arriving for 30 s: what is there is what will ever be there.
    if ((complete && Date.now() - stableSince > 5000) || Date.now() - stableSince > 30_000) break;
    await sleep(1000);
  }
  await clickhouse.close();
  await http.close();

  const redirectorCount = fleet.layout.instances.filter((i) => i.service === 'redirector').length;
  const verdicts = phases.map((phase) => {
    const { latenciesMs, bySlug, timeline, startedAt, ...redirects } = phase.redirects!;
    const { acknowledged, ...creates } = phase.creates!;
    const evidence: PhaseEvidence = {
      fault: phase.fault.name,
      notes: phase.notes,
      redirects: { ...redirects, p99Ms: p99(latenciesMs) },
      probeRedirects: phase.probeRedirects,
      creates: { ...creates, acknowledged: acknowledged.length },
      acknowledgedRedirecting: redirecting.get(phase) ?? 0,
      changes: changeEvidence(phase.changes!, changesHeld.get(phase)!),
      clickRows: settled.get(phase)?.rows ?? 0,
      clickEvents: settled.get(phase)?.events ?? 0,
      freshWithinMsOfEnd: phase.freshWithinMsOfEnd,
      redirectsPerSecondPerRedirector: rates.redirectsPerSecond / redirectorCount,
      webhooks: phase.webhooks,
    };
    // Per link: the 302s answered and the slug's link id, for tracing a shortfall.
    const links = [...phase.links, phase.probe].map((l) => ({
      id: l.id,
      slug: l.slug,
      redirected: bySlug[l.slug] ?? 0,
    }));
    // The fault's span on the timeline's clock, so a stall can be placed before, during or after it.
    const at = (t: number | undefined) => (t === undefined ? null : Math.round((t - startedAt) / 100) / 10);
    return {
      ...judgePhase(evidence),
      redirects: evidence.redirects,
      creates: evidence.creates,
      links,
      timeline: { faultFromS: at(phase.faultStartedAt), faultToS: at(phase.faultEndedAt), seconds: timeline },
    };
  });
  const report: ChaosReport = {
    startedAt: new Date(started).toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    ok: verdicts.every((v) => v.ok),
    rates,
    ...(calibration ? { calibration } : {}),
    entryPoint: summariseEntryPointLog(readFrom(entryLog, entryLogFrom)),
    phases: verdicts,
  };
  mkdirSync(options.resultsDir, { recursive: true });
  writeFileSync(join(options.resultsDir, 'chaos-latest.json'), JSON.stringify(report, null, 2) + '\n');
  return report;
}

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** A file from an offset to its end (empty when it is not there). */
function readFrom(file: string, offset: number): string {
  const size = sizeOf(file);
  if (size <= offset) return '';
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer.toString('utf8');
}

/** What the end of the run found of a phase's changed links. */
interface ChangesHeld {
  links: number;
  /** Redirecting to the last acknowledged change (or a later one of unknown outcome). */
  redirectsHeld: number;
  /** Whose `GET /api/v1/links/:slug` showed what the redirect did. */
  readsHeld: number;
  /** Whose row in the `links` projection (the topic's view) shows the write model's version and destination. */
  projected: number;
}

function changeEvidence(tally: ChangeTally, held: ChangesHeld): PhaseEvidence['changes'] {
  const { links: _bySlug, ...counts } = tally;
  return { ...counts, ...held };
}

/**
 * The `links` projection is the topic's view of the changes: once the write
 * API's outbox has appended every event (at once, or by its relay within a
 * minute after the log was back), each changed link's projected row shows the
 * write model's version and destination. Waits up to 90 s for that.
 */
async function waitForProjectedChanges(
  fleet: Fleet,
  phases: readonly Phase[],
  held: Map<Phase, ChangesHeld>,
  log: (message: string) => void,
): Promise<void> {
  const slugsOf = (phase: Phase) => [...(phase.changes?.links.keys() ?? [])];
  if (phases.every((p) => slugsOf(p).length === 0)) return;
  log('waiting for the links projection to show every change');
  const db = new pg.Pool({ connectionString: fleet.layout.options.databaseUrl, max: 1 });
  try {
    for (const deadline = Date.now() + 90_000; ;) {
      let behind = 0;
      for (const phase of phases) {
        const { rows } = await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM slug_claims c JOIN links l USING (slug)
            WHERE c.slug = ANY($1) AND l.version = c.version AND l.destination_url = c.destination_url`,
          [slugsOf(phase)],
        );
        const projected = Number(rows[0]?.n ?? 0);
        held.get(phase)!.projected = projected;
        behind += slugsOf(phase).length - projected;
      }
      if (behind === 0 || Date.now() > deadline) return;
      await sleep(1000);
    }
  } finally {
    await db.end();
  }
}
