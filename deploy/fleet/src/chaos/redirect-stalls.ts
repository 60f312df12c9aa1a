import type { TrafficSecond } from './traffic';

/** An answer this slow marks its second as a stall. */
export const STALL_MS = 1000;

/** Consecutive seconds of a phase in which redirects stalled: an answer took a second or more, or none came, or none could be sent. */
export interface RedirectStall {
  fromS: number;
  toS: number;
  slowestMs: number;
  notSent: number;
  unanswered: number;
  /** The busiest the machine was in the span, in percent (null: not read). */
  machineBusyMax: number | null;
}

const busier = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

const stalled = (s: TrafficSecond) => s.slowestMs >= STALL_MS || s.notSent > 0 || s.failures > 0;

/** The phase's stalls, in order, on the timeline's clock (seconds from the phase's start). */
export function redirectStalls(seconds: readonly TrafficSecond[]): RedirectStall[] {
  const stalls: RedirectStall[] = [];
  seconds.forEach((s, at) => {
    if (!stalled(s)) return;
    const last = stalls[stalls.length - 1];
    if (last && last.toS === at - 1) {
      last.toS = at;
      last.slowestMs = Math.max(last.slowestMs, s.slowestMs);
      last.notSent += s.notSent;
      last.unanswered += s.failures;
      last.machineBusyMax = busier(last.machineBusyMax, s.machineBusyPercent);
    } else {
      stalls.push({
        fromS: at,
        toS: at,
        slowestMs: s.slowestMs,
        notSent: s.notSent,
        unanswered: s.failures,
        machineBusyMax: s.machineBusyPercent,
      });
    }
  });
  return stalls;
}

/** A phase's redirects second by second, and the fault's span on the same clock (null: not started, not ended). */
export interface RedirectTimeline {
  faultFromS: number | null;
  faultToS: number | null;
  seconds: readonly TrafficSecond[];
}

/**
 * Where a phase's redirects stalled, against the fault's own span, in one
 * line: whether a stall came with the fault, with the recovery (a restarted
 * broker's start-up), or at neither, and whether the machine was saturated
 * then, are the first questions when a timing rule is missed.
 */
export function describeRedirectStalls(timeline: RedirectTimeline): string {
  const stalls = redirectStalls(timeline.seconds);
  const fault =
    timeline.faultFromS === null ? 'no fault' : `the fault ${timeline.faultFromS}-${timeline.faultToS ?? '?'} s`;
  if (stalls.length === 0) return `no redirect stalled (${fault})`;
  const spans = stalls.map(
    (s) =>
      `${s.fromS === s.toS ? s.fromS : `${s.fromS}-${s.toS}`} s (slowest ${s.slowestMs} ms, ` +
      `${s.notSent} not sent, ${s.unanswered} unanswered` +
      `${s.machineBusyMax === null ? '' : `, the machine up to ${s.machineBusyMax} % busy`})`,
  );
  return `redirects stalled at ${spans.join('; ')}; ${fault}`;
}
