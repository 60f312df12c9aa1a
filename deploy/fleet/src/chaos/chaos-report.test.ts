import { describeWebhooks, formatReport, type ChaosReport } from './chaos-report';
import { judgePhase, type PhaseEvidence } from './phase-verdict';
import type { TrafficSecond } from './traffic';

const second = (over: Partial<TrafficSecond> = {}): TrafficSecond => ({
  sent: 100,
  notSent: 0,
  answered: 100,
  redirected: 100,
  serverErrors: 0,
  failures: 0,
  slowestMs: 30,
  inFlightMax: 5,
  machineBusyPercent: null,
  ...over,
});

const evidence = (fault: string, unanswered: number): PhaseEvidence => ({
  fault,
  notes: {},
  redirects: {
    sent: 1000,
    notSent: 0,
    redirected: 1000 - unanswered,
    serverErrors: 0,
    otherStatuses: {},
    failures: unanswered,
    failureReasons: unanswered === 0 ? {} : { UND_ERR_HEADERS_TIMEOUT: unanswered },
    wrongLocations: 0,
    p99Ms: 12,
  },
  probeRedirects: 0,
  creates: {
    sent: 10,
    notSent: 0,
    acknowledged: 10,
    statuses: { '201': 10 },
    unavailableWithRetryAfter: 0,
    failures: 0,
    failureReasons: {},
    slowestMs: 80,
    overFiveSeconds: 0,
  },
  acknowledgedRedirecting: 10,
  // Two links changed once each, both read back and held.
  changes: {
    sent: 2,
    noLinkFree: 0,
    statuses: { '200': 2 },
    unavailableWithRetryAfter: 0,
    failures: 0,
    failureReasons: {},
    slowestMs: 40,
    overFiveSeconds: 0,
    refused: 0,
    staleRedirectsAfterAck: 0,
    staleReadsAfterAck: 0,
    unreadAfterAck: 0,
    links: 2,
    redirectsHeld: 2,
    readsHeld: 2,
    projected: 2,
  },
  clickRows: 1000 - unanswered,
  clickEvents: 1000 - unanswered,
  freshWithinMsOfEnd: 900,
  redirectsPerSecondPerRedirector: 100,
});

/** A failed run of these phases. */
const failedRun = (phases: ChaosReport['phases']): ChaosReport => ({
  startedAt: '2026-11-28T12:00:00.000Z',
  seconds: 100,
  ok: false,
  rates: { redirectsPerSecond: 200, createsPerSecond: 1, changesPerSecond: 1 },
  phases,
});

describe('the chaos report', () => {
  it('tells, for a fault that missed a rule, where its redirects stalled against the fault', () => {
    const report = failedRun([
      {
        ...judgePhase(evidence('baseline', 0)),
        timeline: { faultFromS: 2, faultToS: 4, seconds: [second(), second({ slowestMs: 1500 }), second()] },
      },
      {
        ...judgePhase(evidence('kafka-kill', 48)),
        timeline: {
          faultFromS: 1,
          faultToS: 3.2,
          seconds: [second(), second(), second(), second({ failures: 48, slowestMs: 1200 }), second()],
        },
      },
    ]);
    const text = formatReport(report);
    expect(text).toContain(
      '  kafka-kill: redirects stalled at 3 s (slowest 1200 ms, 0 not sent, 48 unanswered); the fault 1-3.2 s',
    );
    // A fault that met every rule adds no line, however its seconds went.
    expect(text).not.toContain('baseline: redirects stalled');
    expect(text.split('\n').at(-1)).toBe('FAILED in 100 s');
  });

  it('quotes how the redirects were answered, with why any went unanswered, for a fault that missed another rule', () => {
    const report = failedRun([
      {
        ...judgePhase({ ...evidence('kafka-kill', 1), freshWithinMsOfEnd: null }),
        timeline: { faultFromS: 1, faultToS: 3, seconds: [second(), second({ failures: 1 }), second()] },
      },
    ]);
    const text = formatReport(report);
    expect(text).toContain('  kafka-kill: freshness under 2 s within 60 s of the end: not back');
    expect(text).toContain(
      '  kafka-kill: redirects answered 302 (held): 99.900 % of 1000 (0 5xx, 1 unanswered (1 UND_ERR_HEADERS_TIMEOUT), 0 wrong Location)',
    );
  });

  it('says the rate offered and why, and who gave the entry point its abnormal answers', () => {
    const report: ChaosReport = {
      ...failedRun([
        { ...judgePhase(evidence('baseline', 0)), timeline: { faultFromS: 1, faultToS: 2, seconds: [second()] } },
      ]),
      entryPoint: {
        byCause: [
          { cause: '503 redirectors/redirector-1 ----', count: 402 },
          { cause: '503 redirectors/<NOSRV> sQ--', count: 7 },
        ],
        otherLines: 2,
      },
    };
    const lines = formatReport(report).split('\n');
    expect(lines[0]).toBe('offered 200 redirects/s, 1 creates/s and 1 changes/s (as set)');
    expect(lines).toContain('      402  503 redirectors/redirector-1 ----');
    expect(lines).toContain('        7  503 redirectors/<NOSRV> sQ--');
    const calibrated = formatReport({
      ...report,
      rates: { ...report.rates, redirectsPerSecond: 450 },
      calibration: {
        steps: [],
        sustainedPerSecond: 900,
        fraction: 0.5,
        offeredPerSecond: 450,
        offered: { redirectsPerSecond: 450, createsPerSecond: 1, changesPerSecond: 1 },
        why: '900/s held every bound: offering 50 % of it, 450/s',
      },
    });
    expect(calibrated.split('\n')[0]).toBe(
      'offered 450 redirects/s: 900/s held every bound: offering 50 % of it, 450/s',
    );
  });

  it("gives the webhook phase's figures: what was due, what came, and when the last of it came", () => {
    const figures = {
      linkEvents: 1204,
      clicks: 340,
      eventDeliveriesDue: 2400,
      eventDeliveriesInTime: 2400,
      eventDeliveriesAfterReturn: 900,
      clickDeliveriesDue: 680,
      clickDeliveriesInTime: 680,
      requests: 3300,
      answeredOk: 3010,
      duplicates: 12,
      clicksInAnotherBatch: 3,
      drainedMsAfterReturn: 34_250,
    };
    expect(describeWebhooks(figures)).toBe(
      '1,204 link events and 340 clicks acknowledged; 2,400 of 2,400 event deliveries due in time ' +
        '(900 first after the receiver returned), 680 of 680 click deliveries; ' +
        '3,300 requests (3,010 2xx), 12 duplicates, 3 clicks again in another batch; drained 34.3 s after the receiver returned',
    );
    expect(describeWebhooks({ ...figures, drainedMsAfterReturn: null })).toMatch(/; not drained$/);
  });
});
