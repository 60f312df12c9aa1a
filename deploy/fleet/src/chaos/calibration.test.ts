import {
  calibrationRates,
  DEFAULT_MIX,
  judgeStep as judge,
  offeredRate,
  ratesOf,
  type CalibrationStep,
} from './calibration';

const clean = { sent: 10_000, notSent: 0, redirected: 10_000, serverErrors: 0, failures: 0, p99Ms: 40 };
const creates = { slowestMs: 80, notCreated: 0 };
const fixed = { createsPerSecond: 50, changesPerSecond: 20 };
const judgeStep = (rate: number, ...rest: Parameters<typeof judge> extends [unknown, ...infer R] ? R : never) =>
  judge(ratesOf(rate, DEFAULT_MIX, fixed), ...rest);

describe('calibration', () => {
  it('tries rates half again each step, on round numbers, up to the highest', () => {
    expect(calibrationRates(250, 3100)).toEqual([250, 400, 600, 900, 1350, 2050, 3100]);
    expect(calibrationRates(250, 200)).toEqual([]);
  });

  it('holds a step only within every bound of a fault-free phase', () => {
    expect(judgeStep(1000, clean, creates, 300, 60)).toMatchObject({ ok: true, missed: [] });
    const missed = (step: CalibrationStep) => step.missed.join('; ');
    expect(missed(judgeStep(1000, { ...clean, sent: 9_980, notSent: 20 }, creates, 300, 100))).toBe(
      '20 of 10000 redirects not sent on schedule',
    );
    expect(missed(judgeStep(1000, { ...clean, redirected: 9_980, serverErrors: 20 }, creates, 300, 90))).toBe(
      '20 of 10000 not answered 302 (20 5xx, 0 unanswered)',
    );
    expect(missed(judgeStep(1000, { ...clean, p99Ms: 276 }, creates, 300, 100))).toBe('redirect p99 276 ms');
    expect(missed(judgeStep(1000, clean, { slowestMs: 5_400, notCreated: 0 }, 300, 100))).toBe(
      'creates: slowest 5400 ms, 0 not created',
    );
    expect(missed(judgeStep(1000, clean, { slowestMs: 900, notCreated: 3 }, 300, 100))).toBe(
      'creates: slowest 900 ms, 3 not created',
    );
    expect(missed(judgeStep(1000, clean, creates, 2_300, 100))).toBe('a click fresh in 2300 ms');
    expect(missed(judgeStep(1000, clean, creates, null, 100))).toBe('a click not in the analytics within 10 s');
  });

  it('offers the stated share of the highest rate that held, and says why', () => {
    const steps = [
      judgeStep(250, clean, creates, 200, 20),
      judgeStep(400, clean, creates, 250, 30),
      judgeStep(600, clean, creates, 400, 50),
      judgeStep(900, { ...clean, p99Ms: 300 }, creates, 2_600, 100),
    ];
    expect(offeredRate(steps, 0.5, DEFAULT_MIX, fixed)).toMatchObject({
      sustainedPerSecond: 600,
      offeredPerSecond: 300,
      offered: { redirectsPerSecond: 300, createsPerSecond: 7.5, changesPerSecond: 3 },
      why:
        '600/s held every bound; 900/s missed (redirect p99 300 ms; a click fresh in 2600 ms): ' +
        'offering 50 % of it, 300/s, 7.5 creates/s and 3 changes/s beside them',
    });
    expect(offeredRate(steps.slice(0, 3), 0.5, DEFAULT_MIX, fixed).why).toBe(
      '600/s held every bound up to the highest rate tried: offering 50 % of it, 300/s, ' +
        '7.5 creates/s and 3 changes/s beside them',
    );
  });

  it('offers the lowest rate when none held, rather than nothing', () => {
    const calibration = offeredRate([judgeStep(250, clean, creates, null, 100)], 0.5, DEFAULT_MIX, fixed);
    expect(calibration).toMatchObject({ sustainedPerSecond: 0, offeredPerSecond: 250 });
    expect(calibration.why).toMatch(/^no rate held \(250\/s: a click not in the analytics within 10 s\)/);
  });

  it('scales creates and changes with the redirects, each step and the rate offered, unless they were set by hand', () => {
    expect(ratesOf(2000, DEFAULT_MIX, fixed)).toEqual({
      redirectsPerSecond: 2000,
      createsPerSecond: 50,
      changesPerSecond: 20,
    });
    expect(judgeStep(400, clean, creates, 300, 60)).toMatchObject({ createsPerSecond: 10, changesPerSecond: 4 });
    const byHand = { createsPerRedirect: null, changesPerRedirect: 0.01 };
    expect(ratesOf(400, byHand, fixed)).toEqual({ redirectsPerSecond: 400, createsPerSecond: 50, changesPerSecond: 4 });
  });
});
