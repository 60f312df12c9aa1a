/**
 * kafkajs 2.2.4 keeps a 1 ms timer running on every connection that has
 * nothing to send (kafkajs#1556): about 30 ms of CPU a second for each idle
 * client, paid by every service and by the redirector's click worker. The fix
 * is patches/kafkajs+2.2.4.patch, applied by `npm install`; these tests hold
 * kafkajs's request queue to the rule it restores: a timer only when a
 * request waits or the broker has asked the client to slow down.
 */
import { createRequire } from 'node:module';

interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  maybeThrottle(ms: number): void;
  checkPendingRequests(): void;
  push(request: {
    entry: { correlationId: number; resolve: () => void; reject: () => void };
    expectResponse: boolean;
    sendRequest: () => void;
  }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  destroy(): void;
}
type RequestQueueClass = new (options: {
  maxInFlightRequests: number | null;
  requestTimeout: number;
  enforceRequestTimeout: boolean;
  clientId: string;
  broker: string;
  logger: { debug: () => void; warn: () => void };
}) => RequestQueue;

// Not part of kafkajs's typed API: the file the patch changes.
const RequestQueue = createRequire(__filename)('kafkajs/src/network/requestQueue') as RequestQueueClass;

const queue = (maxInFlightRequests: number | null = null) =>
  new RequestQueue({
    maxInFlightRequests,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'localhost:9092',
    logger: { debug: () => undefined, warn: () => undefined },
  });

const request = (correlationId: number, sent: number[]) => ({
  entry: { correlationId, resolve: () => undefined, reject: () => undefined },
  expectResponse: true,
  sendRequest: () => sent.push(correlationId),
});

describe('an idle Kafka connection', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('schedules no timer when nothing waits and nothing is throttled', () => {
    const q = queue();
    q.checkPendingRequests();
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(1_000);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sends a request at once when it can, and stays idle after', () => {
    const q = queue();
    const sent: number[] = [];
    q.push(request(1, sent));
    expect(sent).toEqual([1]);
    q.checkPendingRequests();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sends a request held by a throttle when the throttle ends', () => {
    const q = queue();
    const sent: number[] = [];
    q.maybeThrottle(200);
    q.push(request(1, sent));
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(199);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(20);
    expect(sent).toEqual([1]);
    // Sent, and nothing left to wait for: no timer keeps running.
    jest.advanceTimersByTime(1_000);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sends a request held by the in-flight limit when the answer before it arrives, then stays idle', () => {
    const q = queue(1);
    const sent: number[] = [];
    q.push(request(1, sent));
    q.push(request(2, sent));
    expect(sent).toEqual([1]);
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1, 2]);
    q.fulfillRequest({ correlationId: 2, payload: Buffer.alloc(0), size: 0 });
    jest.advanceTimersByTime(1_000);
    expect(jest.getTimerCount()).toBe(0);
  });
});
