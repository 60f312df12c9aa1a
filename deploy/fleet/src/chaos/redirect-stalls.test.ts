import { describeRedirectStalls, redirectStalls } from './redirect-stalls';
import type { TrafficSecond } from './traffic';

const calm = (over: Partial<TrafficSecond> = {}): TrafficSecond => ({
  sent: 400,
  notSent: 0,
  answered: 400,
  redirected: 400,
  serverErrors: 0,
  failures: 0,
  slowestMs: 40,
  inFlightMax: 20,
  machineBusyPercent: null,
  ...over,
});

describe('where the redirects stalled', () => {
  it('joins consecutive stalled seconds into one span, and keeps spans apart across a calm second', () => {
    const seconds = [
      calm(),
      calm({ slowestMs: 1200 }),
      calm({ notSent: 30, slowestMs: 900 }),
      calm({ failures: 4, slowestMs: 3000 }),
      calm(),
      calm({ failures: 1 }),
    ];
    expect(redirectStalls(seconds)).toEqual([
      { fromS: 1, toS: 3, slowestMs: 3000, notSent: 30, unanswered: 4, machineBusyMax: null },
      { fromS: 5, toS: 5, slowestMs: 40, notSent: 0, unanswered: 1, machineBusyMax: null },
    ]);
  });

  it('says none when every answer came within a second', () => {
    expect(redirectStalls([calm(), calm({ slowestMs: 999 })])).toEqual([]);
    expect(describeRedirectStalls({ faultFromS: 5, faultToS: 37.4, seconds: [calm()] })).toBe(
      'no redirect stalled (the fault 5-37.4 s)',
    );
  });

  it('says how busy the machine was at its busiest in each stall, where it was read', () => {
    const seconds = [
      calm({ machineBusyPercent: 100 }),
      calm({ slowestMs: 1500, machineBusyPercent: 97 }),
      calm({ failures: 2, machineBusyPercent: 99 }),
      calm({ slowestMs: 1200 }),
      calm({ machineBusyPercent: 45 }),
    ];
    expect(redirectStalls(seconds).map((s) => s.machineBusyMax)).toEqual([99]);
    expect(describeRedirectStalls({ faultFromS: 0, faultToS: 1, seconds })).toBe(
      'redirects stalled at 1-3 s (slowest 1500 ms, 0 not sent, 2 unanswered, the machine up to 99 % busy); the fault 0-1 s',
    );
  });

  it('places each stall against the fault in one line', () => {
    const seconds = [calm(), calm(), calm({ slowestMs: 2500, notSent: 852 }), calm({ failures: 4, slowestMs: 1100 })];
    expect(describeRedirectStalls({ faultFromS: 1, faultToS: 2.5, seconds })).toBe(
      'redirects stalled at 2-3 s (slowest 2500 ms, 852 not sent, 4 unanswered); the fault 1-2.5 s',
    );
  });
});
