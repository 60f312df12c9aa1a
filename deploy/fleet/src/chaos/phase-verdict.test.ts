import { judgePhase, type PhaseEvidence } from './phase-verdict';

/** A fault that went perfectly: every redirect answered, every click counted once. */
const clean = (fault: string): PhaseEvidence => ({
  fault,
  notes: {},
  redirects: {
    sent: 10_000,
    notSent: 0,
    redirected: 10_000,
    serverErrors: 0,
    otherStatuses: {},
    failures: 0,
    failureReasons: {},
    wrongLocations: 0,
    p99Ms: 12,
  },
  probeRedirects: 3,
  creates: {
    sent: 500,
    notSent: 0,
    acknowledged: 500,
    statuses: { '201': 500 },
    unavailableWithRetryAfter: 0,
    failures: 0,
    failureReasons: {},
    slowestMs: 80,
    overFiveSeconds: 0,
  },
  acknowledgedRedirecting: 500,
  changes: {
    sent: 200,
    noLinkFree: 0,
    statuses: { '200': 200 },
    unavailableWithRetryAfter: 0,
    failures: 0,
    failureReasons: {},
    slowestMs: 60,
    overFiveSeconds: 0,
    refused: 0,
    staleRedirectsAfterAck: 0,
    staleReadsAfterAck: 0,
    unreadAfterAck: 0,
    links: 120,
    redirectsHeld: 120,
    readsHeld: 120,
    projected: 120,
  },
  clickRows: 10_003,
  clickEvents: 10_003,
  freshWithinMsOfEnd: 900,
  redirectsPerSecondPerRedirector: 1000,
});

const failed = (evidence: PhaseEvidence) =>
  judgePhase(evidence)
    .checks.filter((c) => !c.ok)
    .map((c) => c.name);

describe('judging a fault', () => {
  it('given every redirect answered and every click counted once, passes', () => {
    const verdict = judgePhase(clean('kafka-kill'));
    expect(verdict.ok).toBe(true);
    expect(verdict).toMatchObject({ clicksExpected: 10_003, clicksLost: 0, clicksCountedTwice: 0 });
  });

  it('given one click missing after a broker kill, fails as a loss', () => {
    expect(failed({ ...clean('kafka-kill'), clickRows: 10_002, clickEvents: 10_002 })).toEqual(['no click lost']);
  });

  it('given an event stored twice, fails as counted twice', () => {
    expect(failed({ ...clean('kafka-pause'), clickRows: 10_004 })).toEqual(['no click counted twice']);
  });

  it('names why redirects and creates went unanswered, the commonest reason first', () => {
    const verdict = judgePhase({
      ...clean('kafka-kill'),
      redirects: {
        ...clean('kafka-kill').redirects,
        redirected: 9_996,
        failures: 4,
        failureReasons: { UND_ERR_HEADERS_TIMEOUT: 1, UND_ERR_SOCKET: 3 },
      },
      creates: { ...clean('kafka-kill').creates, failures: 1, failureReasons: { ECONNRESET: 1 } },
    });
    const detail = (name: string) => verdict.checks.find((c) => c.name === name)?.detail;
    expect(detail('redirects answered 302')).toContain('4 unanswered (3 UND_ERR_SOCKET, 1 UND_ERR_HEADERS_TIMEOUT)');
    expect(detail('creates answered within 5 s')).toContain('1 unanswered (1 ECONNRESET)');
  });

  it('given more events than 302s seen, allows only as many as redirects went unanswered or got a 5xx', () => {
    const answerLost = (events: number) => ({
      ...clean('postgres-restart'),
      redirects: { ...clean('postgres-restart').redirects, redirected: 9_995, failures: 3, serverErrors: 2 },
      clickRows: events,
      clickEvents: events,
    });
    // 9,995 302s and the probe's 3 seen; 5 more redirects may have been answered on the way and counted.
    expect(failed(answerLost(10_003)).filter((c) => c.startsWith('no click'))).toEqual([]);
    expect(judgePhase(answerLost(10_003)).clicksOfUnseenRedirects).toBe(5);
    expect(failed(answerLost(10_004))).toContain('no click without a redirect answered');
    expect(failed({ ...clean('kafka-pause'), clickRows: 10_004, clickEvents: 10_004 })).toEqual([
      'no click without a redirect answered',
    ]);
  });

  it('given a redirector killed holding clicks, allows losing those and the ones taken just before the kill', () => {
    const killed = { ...clean('redirector-kill'), notes: { clicksHeldAtKill: 40, readToKillMs: 10 } };
    // 40 held, plus 1000/s for 10 ms: up to 50 may be gone.
    expect(judgePhase({ ...killed, clickRows: 9953, clickEvents: 9953 }).ok).toBe(true);
    expect(failed({ ...killed, clickRows: 9952, clickEvents: 9952 })).toEqual([
      'clicks lost at most what the killed redirector held',
    ]);
  });

  it('given 0.2 % of redirects answered 5xx, fails', () => {
    const redirects = { ...clean('postgres-restart').redirects, redirected: 9980, serverErrors: 20 };
    expect(failed({ ...clean('postgres-restart'), redirects, clickRows: 9983, clickEvents: 9983 })).toEqual([
      'redirects answered 302',
    ]);
  });

  it('given creates refused during a Postgres outage, passes only when each is a 503 with Retry-After', () => {
    const creates = { ...clean('postgres-restart').creates, acknowledged: 450, statuses: { '201': 450, '503': 50 } };
    const evidence = { ...clean('postgres-restart'), creates, acknowledgedRedirecting: 450 };
    expect(judgePhase({ ...evidence, creates: { ...creates, unavailableWithRetryAfter: 50 } }).ok).toBe(true);
    expect(failed({ ...evidence, creates: { ...creates, unavailableWithRetryAfter: 49 } })).toEqual([
      'creates refused with 503 and Retry-After during the outage',
    ]);
  });

  it('given the traffic short of its schedule because every connection was waiting, fails on timing', () => {
    const short = { ...clean('kafka-pause').redirects, notSent: 11 };
    expect(failed({ ...clean('kafka-pause'), redirects: short })).toEqual(['redirects sent on schedule']);
    // 10 of 10,010 due: within the 0.1 % a 302 share may miss by.
    expect(judgePhase({ ...clean('kafka-pause'), redirects: { ...short, notSent: 10 } }).ok).toBe(true);
    const creates = { ...clean('kafka-pause').creates, notSent: 1 };
    expect(failed({ ...clean('kafka-pause'), creates })).toEqual(['creates answered within 5 s']);
  });

  it('given a create that took 6 s, or freshness not back within 60 s, fails', () => {
    const slow = { ...clean('clickhouse-stop').creates, slowestMs: 6000, overFiveSeconds: 1 };
    expect(failed({ ...clean('clickhouse-stop'), creates: slow })).toEqual(['creates answered within 5 s']);
    expect(failed({ ...clean('clickhouse-stop'), freshWithinMsOfEnd: null })).toEqual([
      'freshness under 2 s within 60 s of the end',
    ]);
  });

  it('given a slow recovery, fails on timing only; given a wrong Location, fails on exactness', () => {
    const kinds = (evidence: PhaseEvidence) =>
      judgePhase(evidence)
        .checks.filter((c) => !c.ok)
        .map((c) => c.kind);
    const slow = { ...clean('kafka-kill').creates, slowestMs: 6000, overFiveSeconds: 1 };
    expect(kinds({ ...clean('kafka-kill'), creates: slow, freshWithinMsOfEnd: null })).toEqual(['timing', 'timing']);
    const redirects = { ...clean('kafka-kill').redirects, wrongLocations: 1 };
    expect(failed({ ...clean('kafka-kill'), redirects })).toEqual(['no redirect to a wrong Location']);
    expect(kinds({ ...clean('kafka-kill'), redirects })).toEqual(['exactness']);
  });

  it('given an acknowledged link that does not redirect afterwards, fails', () => {
    expect(failed({ ...clean('redirector-rolling-restart'), acknowledgedRedirecting: 499 })).toEqual([
      'acknowledged links redirect',
    ]);
  });

  describe('changes of links', () => {
    const changes = clean('redirector-kill').changes;
    const judged = (c: Partial<PhaseEvidence['changes']>) =>
      failed({ ...clean('redirector-kill'), changes: { ...changes, ...c } });

    it('given a change answered 200 whose next redirect or read showed the old destination, fails on exactness', () => {
      expect(judged({ staleRedirectsAfterAck: 1 })).toEqual(['acknowledged changes read back at once']);
      expect(judged({ staleReadsAfterAck: 1 })).toEqual(['acknowledged changes read back at once']);
      // A read that got no answer during the fault says nothing either way.
      expect(judged({ unreadAfterAck: 7 })).toEqual([]);
    });

    it('given a changed link that ends elsewhere, reads otherwise or is not projected, fails', () => {
      expect(judged({ redirectsHeld: 119 })).toEqual(['acknowledged changes hold']);
      expect(judged({ readsHeld: 119 })).toEqual(['acknowledged changes hold']);
      expect(judged({ projected: 119 })).toEqual(['changes reach the links projection']);
    });

    it('given a change of an own link refused, fails; a 503 or no answer does not', () => {
      expect(judged({ refused: 1, statuses: { '200': 199, '404': 1 } })).toEqual(['no change of a link refused']);
      expect(judged({ statuses: { '200': 150, '503': 50 }, unavailableWithRetryAfter: 50, failures: 3 })).toEqual([]);
    });

    it('given a change answered after 6 s, fails on timing', () => {
      const verdict = judgePhase({
        ...clean('postgres-pause'),
        changes: { ...changes, slowestMs: 6000, overFiveSeconds: 1 },
      });
      expect(verdict.checks.filter((c) => !c.ok).map((c) => [c.name, c.kind])).toEqual([
        ['changes answered within 5 s', 'timing'],
      ]);
    });
  });
});
