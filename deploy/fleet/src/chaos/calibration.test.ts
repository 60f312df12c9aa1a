import { calibrationRates, judgeStep, offeredRate, type CalibrationStep } from './calibration';

const clean = { sent: 10_000, notSent: 0, redirected: 10_000, serverErrors: 0, failures: 0, p99Ms: 40 };
const creates = { slowestMs: 80, unanswered: 0 };

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
    expect(missed(judgeStep(1000, clean, { slowestMs: 5_400, unanswered: 0 }, 300, 100))).toBe(
      'creates: slowest 5400 ms, 0 unanswered',
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
    expect(offeredRate(steps, 0.5)).toMatchObject({
      sustainedPerSecond: 600,
      offeredPerSecond: 300,
      why: '600/s held every bound; 900/s missed (redirect p99 300 ms; a click fresh in 2600 ms): offering 50 % of it, 300/s',
    });
    expect(offeredRate(steps.slice(0, 3), 0.5).why).toBe(
      '600/s held every bound up to the highest rate tried: offering 50 % of it, 300/s',
    );
  });

  it('offers the lowest rate when none held, rather than nothing', () => {
    const calibration = offeredRate([judgeStep(250, clean, creates, null, 100)], 0.5);
    expect(calibration).toMatchObject({ sustainedPerSecond: 0, offeredPerSecond: 250 });
    expect(calibration.why).toMatch(/^no rate held \(250\/s: a click not in the analytics within 10 s\)/);
  });
});
