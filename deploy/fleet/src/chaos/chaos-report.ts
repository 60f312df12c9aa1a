import { REDIRECTS_ANSWERED, type PhaseVerdict } from './phase-verdict';
import { describeRedirectStalls, type RedirectTimeline } from './redirect-stalls';
import type { WebhookFigures } from './webhook-verdict';
import type { Calibration } from './calibration';
import type { AbnormalAnswers } from './entry-point-log';

/** What a chaos run found, as `chaos-latest.json` keeps it. */
export interface ChaosReport {
  startedAt: string;
  seconds: number;
  ok: boolean;
  rates: { redirectsPerSecond: number; createsPerSecond: number; changesPerSecond: number };
  /** How the redirect rate was chosen, when it was measured on this machine (calibration.ts). */
  calibration?: Calibration;
  /** The entry point's abnormal answers over the run (5xx, timeouts, retries): who gave them and why they ended. */
  entryPoint?: AbnormalAnswers;
  /** Each verdict with the second-by-second redirects it was judged on. */
  phases: (PhaseVerdict & { timeline: RedirectTimeline })[];
}

/** The report as a table: one row a fault, then every failed check. */
export function formatReport(report: ChaosReport): string {
  const rows = report.phases.map((p) =>
    [
      p.fault.padEnd(27),
      `${p.redirected302Percent.toFixed(3)}%`.padStart(9),
      String(p.serverErrors).padStart(5),
      `${p.acknowledgedRedirecting}/${p.createsAcknowledged}`.padStart(9),
      `${p.changesAcknowledged}/${p.changesSent}`.padStart(9),
      `${p.clicksCounted}/${p.clicksExpected}`.padStart(13),
      String(p.clicksCountedTwice).padStart(5),
      (p.freshWithinMsOfEnd === null ? 'never' : `${(p.freshWithinMsOfEnd / 1000).toFixed(1)} s`).padStart(8),
      p.ok ? 'ok' : 'FAILED',
    ].join('  '),
  );
  const failures = report.phases.flatMap((p) => {
    const failed = p.checks.filter((c) => !c.ok);
    const lines = failed.map((c) => `  ${p.fault}: ${c.name}: ${c.detail}`);
    if (failed.length > 0) {
      // How the redirects were answered (the unanswered by reason) and where they stalled, against
      // the fault, are the first clues to any rule missed, though their own rules held.
      const answered = p.checks.find((c) => c.name === REDIRECTS_ANSWERED);
      if (answered?.ok) lines.push(`  ${p.fault}: ${answered.name} (held): ${answered.detail}`);
      lines.push(`  ${p.fault}: ${describeRedirectStalls(p.timeline)}`);
    }
    return lines;
  });
  const webhooks = report.phases.flatMap((p) => (p.webhooks ? [`  ${p.fault}: ${describeWebhooks(p.webhooks)}`] : []));
  const { redirectsPerSecond, createsPerSecond, changesPerSecond } = report.rates;
  const offered = report.calibration
    ? [`offered ${redirectsPerSecond} redirects/s: ${report.calibration.why}`, '']
    : [
        `offered ${redirectsPerSecond} redirects/s, ${createsPerSecond} creates/s and ${changesPerSecond} changes/s (as set)`,
        '',
      ];
  const causes = report.entryPoint?.byCause ?? [];
  const entryPoint =
    causes.length === 0
      ? []
      : [
          '',
          "the entry point's abnormal answers (status, backend/instance, HAProxy's termination state):",
          ...causes.slice(0, 10).map((c) => `  ${String(c.count).padStart(7)}  ${c.cause}`),
        ];
  return [
    ...offered,
    `fault                         302 share    5xx  links ok  changes  clicks/human  twice  fresh at  verdict`,
    ...rows,
    ...(webhooks.length > 0 ? ['', 'webhooks:', ...webhooks] : []),
    ...(failures.length > 0 ? ['', 'failed checks:', ...failures] : []),
    ...entryPoint,
    '',
    `${report.ok ? 'PASSED' : 'FAILED'} in ${report.seconds} s`,
  ].join('\n');
}

/** The webhook phase's figures in a line: what was due, what came, and when the last of it came. */
export function describeWebhooks(w: WebhookFigures): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const drained =
    w.drainedMsAfterReturn === null
      ? 'not drained'
      : `drained ${(w.drainedMsAfterReturn / 1000).toFixed(1)} s after the receiver returned`;
  return (
    `${n(w.linkEvents)} link events and ${n(w.clicks)} clicks acknowledged; ` +
    `${n(w.eventDeliveriesInTime)} of ${n(w.eventDeliveriesDue)} event deliveries due in time ` +
    `(${n(w.eventDeliveriesAfterReturn)} first after the receiver returned), ` +
    `${n(w.clickDeliveriesInTime)} of ${n(w.clickDeliveriesDue)} click deliveries; ` +
    `${n(w.requests)} requests (${n(w.answeredOk)} 2xx), ${n(w.duplicates)} duplicates, ` +
    `${n(w.clicksInAnotherBatch)} clicks again in another batch; ${drained}`
  );
}
