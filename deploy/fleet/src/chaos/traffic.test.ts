import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Traffic } from './traffic';

/** An entry point that answers nothing until released: every connection stays waiting. */
function heldEntryPoint() {
  const held: ServerResponse[] = [];
  let location: string | undefined;
  const server: Server = createServer((_req, res) => {
    if (location === undefined) held.push(res);
    else res.writeHead(302, { location }).end();
  });
  return {
    held,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    /** Answers the waiting requests, and any later one at once. */
    release(to: string): void {
      location = to;
      for (const res of held.splice(0)) res.writeHead(302, { location }).end();
    },
    /** Cuts the waiting requests' connections: no answer at all. */
    cut(): void {
      for (const res of held.splice(0)) res.socket?.destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the chaos traffic', () => {
  const link = { slug: 'abc', url: 'https://example.com/' };

  /** Traffic at 1,000 redirects/s over four connections, to an entry point that holds them: four wait. */
  async function fourRedirectsWaiting() {
    const entry = heldEntryPoint();
    const traffic = new Traffic(
      await entry.listen(),
      'key',
      { redirectsPerSecond: 1000, createsPerSecond: 0 },
      {
        redirects: 4,
      },
    );
    traffic.nextPhase([link]);
    traffic.start();
    while (entry.held.length < 4) await sleep(10);
    return { entry, traffic };
  }

  it('sends a redirect at once or not at all: with every connection waiting, the ones due are counted as not sent', async () => {
    const { entry, traffic } = await fourRedirectsWaiting();
    try {
      await sleep(300);
      // No more redirects: the phase ends with its four requests still waiting.
      const phase = traffic.nextPhase([]);
      expect(entry.held).toHaveLength(4);
      expect(phase.redirects.sent).toBe(4);
      // About 300 were due in those 300 ms; none waits in this client to leave in a later phase.
      expect(phase.redirects.notSent).toBeGreaterThan(100);

      // Answers that arrive after the phase ended are still its own.
      entry.release(link.url);
      await phase.settled();
      expect(phase.redirects).toMatchObject({ sent: 4, redirected: 4, failures: 0, bySlug: { abc: 4 } });

      // Second by second, the same counts: where in the phase the requests waited.
      const { timeline } = phase.redirects;
      const total = (key: 'sent' | 'notSent' | 'answered' | 'redirected') =>
        timeline.reduce((sum, s) => sum + s[key], 0);
      expect(total('sent')).toBe(4);
      expect(total('notSent')).toBe(phase.redirects.notSent);
      expect(total('answered')).toBe(4);
      expect(total('redirected')).toBe(4);
      expect(Math.max(...timeline.map((s) => s.inFlightMax))).toBe(4);
      expect(Math.max(...timeline.map((s) => s.slowestMs))).toBeGreaterThanOrEqual(300);
    } finally {
      entry.release(link.url);
      await traffic.close();
      await entry.close();
    }
  });

  it('places a redirect that got no answer in the second it was sent, not the one it gave up in', async () => {
    const { entry, traffic } = await fourRedirectsWaiting();
    try {
      const phase = traffic.nextPhase([]);
      // Sent in the phase's first second; cut in its third.
      await sleep(Math.max(0, 2100 - (performance.now() - phase.redirects.startedAt)));
      entry.cut();
      await phase.settled();
      // A cut connection, told apart from a timeout in the report.
      expect(phase.redirects).toMatchObject({ sent: 4, failures: 4, failureReasons: { UND_ERR_SOCKET: 4 } });
      const { timeline } = phase.redirects;
      expect(timeline[0]?.failures).toBe(4);
      expect(timeline.reduce((sum, s) => sum + s.failures, 0)).toBe(4);
    } finally {
      await traffic.close();
      await entry.close();
    }
  });
});
