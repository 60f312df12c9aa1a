import type { RedirectTally } from './traffic';

/**
 * What the fleet sustains on the machine it runs on, measured before the faults: redirects offered at rising rates
 * for a few seconds each, with the run's creates and changes beside them, until a step misses what a fault-free phase
 * must hold. The run then offers a stated fraction of the last rate that held, so the baseline measures the fleet
 * rather than the machine's limit, and a fault has the headroom to recover in (docs/reliability.md).
 */

/**
 * Creates and changes as a share of the redirects, so that a step (and the rate offered) is a load of one shape on
 * any machine. A rate given by hand is not scaled (`null`).
 */
export interface TrafficMix {
  createsPerRedirect: number | null;
  changesPerRedirect: number | null;
}

/** The mix of the runs docs/reliability.md reports: 2,000 redirects, 50 creates and 20 changes a second. */
export const DEFAULT_MIX: TrafficMix = { createsPerRedirect: 50 / 2000, changesPerRedirect: 20 / 2000 };

export interface OfferedRates {
  redirectsPerSecond: number;
  createsPerSecond: number;
  changesPerSecond: number;
}

/** The three rates of a redirect rate under a mix; a rate not scaled stays as given. To a tenth of a request. */
export function ratesOf(redirectsPerSecond: number, mix: TrafficMix, fixed: Omit<OfferedRates, 'redirectsPerSecond'>) {
  const scaled = (share: number | null, given: number) =>
    share === null ? given : Math.round(redirectsPerSecond * share * 10) / 10;
  return {
    redirectsPerSecond,
    createsPerSecond: scaled(mix.createsPerRedirect, fixed.createsPerSecond),
    changesPerSecond: scaled(mix.changesPerRedirect, fixed.changesPerSecond),
  } satisfies OfferedRates;
}

export interface CalibrationStep extends OfferedRates {
  sent: number;
  notSent: number;
  redirected: number;
  serverErrors: number;
  failures: number;
  p99Ms: number;
  /** Slowest create of the step (ms), and how many were not created: refused, failed or not sent. */
  slowestCreateMs: number;
  createsNotCreated: number;
  /** A click's time to reach the analytics at the step's end (null: not within 10 s). */
  freshMs: number | null;
  /** The machine's median CPU use over the step, in percent (null: not measured). */
  machineBusyPercent: number | null;
  ok: boolean;
  /** What the step missed, in words (empty when it held). */
  missed: string[];
}

export interface Calibration {
  steps: CalibrationStep[];
  /** The highest redirect rate whose step held (0: none did). */
  sustainedPerSecond: number;
  fraction: number;
  /** What the run offers: the fraction of the sustained rate, at least the lowest rate tried. */
  offeredPerSecond: number;
  /** The three rates offered, creates and changes scaled with the redirects by the mix. */
  offered: OfferedRates;
  why: string;
}

/** The step's bounds: those of a fault-free phase (phase-verdict.ts), and a p99 a visitor does not notice. */
export const STEP_LIMITS = {
  minShare: 0.999,
  p99Ms: 250,
  createMs: 5000,
  freshMs: 2000,
} as const;

/** The rates tried: from `from`, half again each step, the last at most `max`. */
export function calibrationRates(from: number, max: number): number[] {
  const rates: number[] = [];
  for (let rate = from; rate <= max; rate = Math.round((rate * 1.5) / 50) * 50) rates.push(rate);
  return rates;
}

/** One step's figures judged against STEP_LIMITS. */
export function judgeStep(
  rates: OfferedRates,
  redirects: Pick<RedirectTally, 'sent' | 'notSent' | 'redirected' | 'serverErrors' | 'failures'> & { p99Ms: number },
  creates: { slowestMs: number; notCreated: number },
  freshMs: number | null,
  machineBusyPercent: number | null,
): CalibrationStep {
  const missed: string[] = [];
  const due = redirects.sent + redirects.notSent;
  if (due > 0 && redirects.sent / due < STEP_LIMITS.minShare) {
    missed.push(`${redirects.notSent} of ${due} redirects not sent on schedule`);
  }
  if (redirects.sent > 0 && redirects.redirected / redirects.sent < STEP_LIMITS.minShare) {
    missed.push(
      `${redirects.sent - redirects.redirected} of ${redirects.sent} not answered 302 ` +
        `(${redirects.serverErrors} 5xx, ${redirects.failures} unanswered)`,
    );
  }
  if (redirects.p99Ms > STEP_LIMITS.p99Ms) missed.push(`redirect p99 ${redirects.p99Ms} ms`);
  if (creates.notCreated > 0 || creates.slowestMs > STEP_LIMITS.createMs) {
    missed.push(`creates: slowest ${Math.round(creates.slowestMs)} ms, ${creates.notCreated} not created`);
  }
  if (freshMs === null || freshMs > STEP_LIMITS.freshMs) {
    missed.push(freshMs === null ? 'a click not in the analytics within 10 s' : `a click fresh in ${freshMs} ms`);
  }
  return {
    ...rates,
    ...redirects,
    slowestCreateMs: Math.round(creates.slowestMs),
    createsNotCreated: creates.notCreated,
    freshMs,
    machineBusyPercent,
    ok: missed.length === 0,
    missed,
  };
}

/** The rates the run offers, from the steps taken (in order, stopped at the first that missed). */
export function offeredRate(
  steps: readonly CalibrationStep[],
  fraction: number,
  mix: TrafficMix,
  fixed: Omit<OfferedRates, 'redirectsPerSecond'>,
): Calibration {
  const held = steps.filter((s) => s.ok);
  const sustained = held.length === 0 ? 0 : Math.max(...held.map((s) => s.redirectsPerSecond));
  const lowest = steps[0]?.redirectsPerSecond ?? 0;
  const offered = Math.max(lowest, Math.round((sustained * fraction) / 10) * 10);
  const failed = steps.find((s) => !s.ok);
  const offeredRates = ratesOf(offered, mix, fixed);
  const shape = `${offeredRates.createsPerSecond} creates/s and ${offeredRates.changesPerSecond} changes/s beside them`;
  const why =
    sustained === 0
      ? `no rate held (${failed?.redirectsPerSecond}/s: ${failed?.missed.join('; ')}): offering the lowest, ${lowest}/s, ${shape}`
      : `${sustained}/s held every bound` +
        (failed
          ? `; ${failed.redirectsPerSecond}/s missed (${failed.missed.join('; ')})`
          : ' up to the highest rate tried') +
        `: offering ${Math.round(fraction * 100)} % of it, ${offered}/s, ${shape}`;
  return {
    steps: [...steps],
    sustainedPerSecond: sustained,
    fraction,
    offeredPerSecond: offered,
    offered: offeredRates,
    why,
  };
}
