import { isNetworkError } from './network-error';

describe('a network error', () => {
  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'ENOTFOUND',
    'EAI_AGAIN',
    'ECONNABORTED',
  ])('is a socket that cannot reach the other side (%s)', (code) =>
    expect(isNetworkError(Object.assign(new Error(`connect ${code} 10.0.0.5:5432`), { code }))).toBe(true),
  );

  it("is pg's pool losing or never getting a connection", () => {
    expect(isNetworkError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isNetworkError(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isNetworkError(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
  });

  it('is never a refused statement, a plain value, or an error whose cause alone is one', () => {
    expect(isNetworkError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isNetworkError('ECONNREFUSED')).toBe(false);
    expect(isNetworkError(null)).toBe(false);
    expect(isNetworkError(new Error('wrapped', { cause: { code: 'ECONNREFUSED' } }))).toBe(false);
  });
});
