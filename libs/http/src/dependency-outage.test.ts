import { isDependencyOutage } from './dependency-outage';

describe('a dependency outage', () => {
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
  ])('is a store its socket cannot reach (%s), also when it is the cause of the error thrown', (code) => {
    const socket = Object.assign(new Error(`connect ${code} 10.0.0.5:5432`), { code });
    expect(isDependencyOutage(socket)).toBe(true);
    expect(isDependencyOutage(new Error('lookup failed', { cause: socket }))).toBe(true);
  });

  it('is a Postgres going away or full, and never a statement Postgres refused', () => {
    for (const code of ['08006', '57P01', '53300']) expect(isDependencyOutage({ code })).toBe(true);
    for (const code of ['23505', '22P02', '42601']) expect(isDependencyOutage({ code })).toBe(false);
  });
});
