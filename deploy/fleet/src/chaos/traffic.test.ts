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

  describe('changes', () => {
    /**
     * A small link service: creates, changes (PATCH), redirects and reads.
     * `mode` says how it misbehaves: a redirect that keeps the created
     * destination after a change, or every change answered 503.
     */
    async function linkService(mode: 'right' | 'stale-redirect' | 'unavailable') {
      const created = new Map<string, string>();
      const current = new Map<string, string>();
      let n = 0;
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          const json = (status: number, value: unknown) =>
            res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
          const [, api, slug] = /^\/(api\/v1\/links\/?)?([^/?]*)/.exec(req.url ?? '') ?? [];
          if (req.method === 'POST') {
            const made = `s${n++}`;
            const { url } = JSON.parse(body) as { url: string };
            created.set(made, url);
            current.set(made, url);
            return json(201, { id: made, slug: made });
          }
          if (slug === undefined || !current.has(slug)) return json(404, { error: 'Link not found' });
          if (req.method === 'PATCH') {
            if (mode === 'unavailable') return res.writeHead(503, { 'retry-after': '5' }).end('{}');
            current.set(slug, (JSON.parse(body) as { url: string }).url);
            return json(200, {});
          }
          if (api) return json(200, { destinationUrl: current.get(slug) });
          res.writeHead(302, { location: mode === 'stale-redirect' ? created.get(slug) : current.get(slug) }).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        current,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    }

    async function changesAgainst(mode: Parameters<typeof linkService>[0]) {
      const service = await linkService(mode);
      const traffic = new Traffic(service.url, 'key', {
        redirectsPerSecond: 0,
        createsPerSecond: 50,
        changesPerSecond: 200,
      });
      traffic.nextPhase([]);
      traffic.start();
      await sleep(500);
      const phase = traffic.nextPhase([]);
      // Its changes' read-backs finish before the connections close.
      await traffic.stop();
      await phase.settled();
      await traffic.close();
      await service.close();
      return { phase, current: service.current };
    }

    it('changes only links the phase created, one at a time, and reads each change answered 200 back', async () => {
      const { phase, current } = await changesAgainst('right');
      const { changes, creates } = phase;
      expect(changes.sent).toBeGreaterThan(20);
      expect(changes.statuses).toEqual({ '200': changes.sent });
      expect(changes).toMatchObject({
        staleRedirectsAfterAck: 0,
        staleReadsAfterAck: 0,
        unreadAfterAck: 0,
        refused: 0,
      });
      // Busy links are skipped, never changed twice at once: the last change answered is the link's state.
      expect(changes.noLinkFree).toBeGreaterThan(0);
      const createdSlugs = new Set(creates.acknowledged.map((l) => l.slug));
      for (const link of changes.links.values()) {
        expect(createdSlugs.has(link.slug)).toBe(true);
        expect(current.get(link.slug)).toBe(link.acknowledged);
        expect(link.uncertain).toEqual([]);
      }
    });

    it('counts a redirect that still goes to the old destination after a 200', async () => {
      const { phase } = await changesAgainst('stale-redirect');
      expect(phase.changes.staleRedirectsAfterAck).toBe(phase.changes.sent);
      expect(phase.changes.staleReadsAfterAck).toBe(0);
    });

    it('keeps a change answered 503 as one that may or may not have been saved', async () => {
      const { phase } = await changesAgainst('unavailable');
      const { changes, creates } = phase;
      expect(changes).toMatchObject({ unavailableWithRetryAfter: changes.sent, refused: 0, staleRedirectsAfterAck: 0 });
      for (const link of changes.links.values()) {
        expect(link.acknowledged).toBe(creates.acknowledged.find((l) => l.slug === link.slug)?.url);
        expect(link.uncertain).toHaveLength(link.n);
      }
    });
  });
});
