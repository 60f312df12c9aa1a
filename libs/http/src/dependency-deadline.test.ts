import { answerWithin, DependencyTimeout } from './dependency-deadline';
import { isDependencyOutage } from './dependency-outage';

describe('waiting on a dependency within a deadline', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('given an answer in time, is that answer', async () => {
    const answer = answerWithin(Promise.resolve('row'), 2000, 'Postgres');
    await expect(answer).resolves.toBe('row');
  });

  it('given a failure in time, is that failure', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    await expect(answerWithin(Promise.reject(refused), 2000, 'Postgres')).rejects.toBe(refused);
  });

  it('given no answer, fails at the deadline as an outage of the dependency named', async () => {
    const stalled = answerWithin(new Promise<never>(() => undefined), 2000, 'Postgres');
    const failed = stalled.catch((error: unknown) => error);
    jest.advanceTimersByTime(1999);
    await Promise.resolve();
    let settled = false;
    void failed.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    jest.advanceTimersByTime(1);
    const error = await failed;
    expect(error).toBeInstanceOf(DependencyTimeout);
    expect(error).toMatchObject({ message: 'Postgres did not answer within 2000 ms', dependency: 'Postgres' });
    expect(isDependencyOutage(error)).toBe(true);
  });

  it("takes pg's own read timeout for an outage too, and a wrong query for none", () => {
    expect(isDependencyOutage(new Error('Query read timeout'))).toBe(true);
    expect(isDependencyOutage(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
  });
});
