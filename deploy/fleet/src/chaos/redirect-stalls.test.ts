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
      { fromS: 1, toS: 3, slowestMs: 3000, notSent: 30, unanswered: 4 },
      { fromS: 5, toS: 5, slowestMs: 40, notSent: 0, unanswered: 1 },
    ]);
  });

  it('says none when every answer came within a second', () => {
    expect(redirectStalls([calm(), calm({ slowestMs: 999 })])).toEqual([]);
    expect(describeRedirectStalls({ faultFromS: 5, faultToS: 37.4, seconds: [calm()] })).toBe(
      'no redirect stalled (the fault 5-37.4 s)',
    );
  });

  it('places each stall against the fault in one line', () => {
    const seconds = [calm(), calm(), calm({ slowestMs: 2500, notSent: 852 }), calm({ failures: 4, slowestMs: 1100 })];
    expect(describeRedirectStalls({ faultFromS: 1, faultToS: 2.5, seconds })).toBe(
      'redirects stalled at 2-3 s (slowest 2500 ms, 852 not sent, 4 unanswered); the fault 1-2.5 s',
    );
  });
});
