import { DependencyTimeout } from './dependency-deadline';
import { isDependencyOutage } from './dependency-outage';

describe('a dependency outage', () => {
  // Which socket failures are network errors is @shortlink/network-errors' rule, tested there; here, that one
  // counts, itself or as the cause of the error thrown.
  it('is a store its socket cannot reach, also when that is the cause of the error thrown', () => {
    const socket = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
    expect(isDependencyOutage(socket)).toBe(true);
    expect(isDependencyOutage(new Error('lookup failed', { cause: socket }))).toBe(true);
    expect(isDependencyOutage(new Error('a bug', { cause: new TypeError('x is undefined') }))).toBe(false);
  });

  it('is a Postgres going away or full, and never a statement Postgres refused', () => {
    for (const code of ['08006', '57P01', '53300']) expect(isDependencyOutage({ code })).toBe(true);
    for (const code of ['23505', '22P02', '42601']) expect(isDependencyOutage({ code })).toBe(false);
  });

  it('is a query whose answer did not come in time', () => {
    expect(isDependencyOutage(new Error('Query read timeout'))).toBe(true);
    expect(isDependencyOutage(new DependencyTimeout('clickhouse', 5000))).toBe(true);
  });
});
