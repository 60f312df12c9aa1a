import { decideOnSeenKey, isFinalResponse, type SeenRequest } from './idempotency-decision';

const created = { status: 201, headers: { location: 'https://sho.rt/go' }, body: '{"slug":"go"}' };

describe('decideOnSeenKey', () => {
  it('given the same request, answered, then its response is replayed', () => {
    const seen: SeenRequest = { requestHash: 'h1', response: created };
    expect(decideOnSeenKey(seen, 'h1')).toEqual({ kind: 'replay', response: created });
  });

  it('given the same request, still at work, then the retry waits', () => {
    expect(decideOnSeenKey({ requestHash: 'h1', response: null }, 'h1')).toEqual({ kind: 'wait' });
  });

  it('given another request under the key, answered or not, then it is a mismatch', () => {
    expect(decideOnSeenKey({ requestHash: 'h1', response: created }, 'h2')).toEqual({ kind: 'mismatch' });
    expect(decideOnSeenKey({ requestHash: 'h1', response: null }, 'h2')).toEqual({ kind: 'mismatch' });
  });
});

describe('isFinalResponse', () => {
  it.each([200, 201, 400, 403, 409, 413])('given %i, then it is kept for the retries', (status) => {
    expect(isFinalResponse(status)).toBe(true);
  });

  it.each([500, 503])('given %i, then the key is released so that a retry can succeed', (status) => {
    expect(isFinalResponse(status)).toBe(false);
  });
});
