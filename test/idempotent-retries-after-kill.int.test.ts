import { decodeEvent, linkEvent } from '@shortlink/events';
import { issueKey, openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/**
 * An integrator's keyed creates when the write API holding them is killed (SIGKILL) mid-stream, as docs/integrators.md
 * promises them: every request whose answer was lost is retried with its key through another process until final, and
 * each ends with the links of one attempt (no second link, no "taken" for its own slug, one answer from then on). Built
 * entry points on real Postgres and Kafka; the kill is real, so the test asserts that it caught requests at work.
 */
describe('Idempotent retries after a write API is killed mid-stream', () => {
  let infra: TestInfra;
  let key: string;
  const running: RunningProcess[] = [];
  const env = () => ({
    DATABASE_URL: infra.db.url,
    KAFKA_BROKERS: infra.brokers.join(','),
    KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    PUBLIC_BASE_URL: 'https://sho.rt',
  });
  const startWriter = async () => {
    const writer = await startProcess('services/write-api/dist/main.js', env());
    running.push(writer);
    return writer;
  };

  beforeAll(async () => {
    buildOnce();
    infra = await openTestInfra();
    key = await issueKey(infra.pool, 'pro');
  }, 90_000);

  afterAll(async () => {
    for (const writer of running) await writer.kill();
    await infra?.close();
  });

  interface Request {
    key: string;
    path: '/api/v1/links' | '/api/v1/links/bulk';
    body: string;
    /** The destinations it creates, one link each. */
    urls: string[];
  }
  interface Answer {
    status: number;
    text: string;
    replayed: boolean;
  }

  /** Three kinds in turn: a generated slug, a custom slug, and a bulk create of four (one custom). */
  function request(i: number): Request {
    const url = (n: number) => `https://example.com/killed/${i}/${n}`;
    if (i % 3 === 0) return one(i, { url: url(0) });
    if (i % 3 === 1) return one(i, { url: url(0), customSlug: `killed-${i}` });
    const links = [{ url: url(0) }, { url: url(1) }, { url: url(2), customSlug: `killed-bulk-${i}` }, { url: url(3) }];
    return {
      key: `kill-${i}`,
      path: '/api/v1/links/bulk',
      body: JSON.stringify({ links }),
      urls: links.map((l) => l.url),
    };
  }
  function one(i: number, body: { url: string; customSlug?: string }): Request {
    return { key: `kill-${i}`, path: '/api/v1/links', body: JSON.stringify(body), urls: [body.url] };
  }

  async function send(writer: RunningProcess, req: Request): Promise<Answer | 'lost'> {
    try {
      const res = await fetch(`${writer.url}${req.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': req.key },
        body: req.body,
      });
      return {
        status: res.status,
        text: await res.text(),
        replayed: res.headers.get('idempotent-replayed') === 'true',
      };
    } catch {
      return 'lost'; // the connection died with the process
    }
  }

  /** What an integrator does: retry a lost answer, a 5xx or a 409 "in progress" after a pause, until it is final. */
  async function untilFinal(writer: RunningProcess, req: Request): Promise<Answer> {
    for (let tries = 1; ; tries++) {
      const answer = await send(writer, req);
      const inProgress =
        answer !== 'lost' && answer.status === 409 && answer.text.includes('idempotency_key_in_progress');
      if (answer !== 'lost' && answer.status < 500 && !inProgress) return answer;
      if (tries >= 200) throw new Error(`${req.key}: no final answer after ${tries} tries`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** Every `LinkCreated` on the links topic, once each by event id, up to the topic's end. */
  async function createdLinks(): Promise<Map<string, Set<string>>> {
    const topic = infra.names.topics.links;
    const admin = infra.kafka.admin();
    await admin.connect();
    const ends = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    const left = new Map(ends.filter((p) => p.high !== '0').map((p) => [p.partition, Number(p.high)]));
    const linksByUrl = new Map<string, Set<string>>();
    const seen = new Set<string>();
    const consumer = infra.kafka.consumer({ groupId: `${infra.topicPrefix}kill-reader-${Date.now()}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const done = new Promise<void>((resolve) => {
      if (left.size === 0) resolve();
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          const decoded = decodeEvent(linkEvent, message.value);
          if (decoded.ok && decoded.event.type === 'LinkCreated' && !seen.has(decoded.event.eventId)) {
            seen.add(decoded.event.eventId);
            const { destinationUrl, linkId } = decoded.event.data;
            linksByUrl.set(destinationUrl, (linksByUrl.get(destinationUrl) ?? new Set()).add(linkId));
          }
          if (Number(message.offset) + 1 >= (left.get(partition) ?? 0)) left.delete(partition);
          if (left.size === 0) resolve();
        },
      });
    });
    try {
      await done;
    } finally {
      await consumer.disconnect();
    }
    return linksByUrl;
  }

  it('finishes every request the kill interrupted, through the other process, with one set of links and one answer', async () => {
    const victim = await startWriter();
    const survivor = await startWriter();
    const requests = Array.from({ length: 600 }, (_, i) => request(i));
    const first = new Map<string, Answer | 'lost'>();

    // 32 integrators' connections on the victim, killed once it has answered 90 requests and
    // holds a key at work: the kill is to catch one. Timed by answers alone, a kill can catch
    // every request before its key is written; polled from here, the key seen at work can be
    // answered between the poll and the kill. So the victim is frozen (SIGSTOP) while it is
    // looked at, and killed only while frozen with a key at work.
    const keysAtWork = async () =>
      Number(
        (
          await infra.pool.query<{ n: string }>(
            'SELECT count(*) AS n FROM idempotency_keys WHERE response_status IS NULL AND NOT abandoned',
          )
        ).rows[0]!.n,
      );
    let next = 0;
    let killed = false;
    let killing: Promise<void> | undefined;
    const kill = async () => {
      for (;;) {
        process.kill(victim.pid, 'SIGSTOP');
        if ((await keysAtWork()) > 0 || next >= requests.length) break;
        process.kill(victim.pid, 'SIGCONT');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await victim.kill();
      killed = true;
    };
    const connection = async () => {
      while (!killed && next < requests.length) {
        const req = requests[next++]!;
        first.set(req.key, await send(victim, req));
        if (first.size >= 90 && killing === undefined) killing = kill();
      }
    };
    await Promise.all(Array.from({ length: 32 }, connection));
    await killing;
    const atWork = await keysAtWork();
    const interrupted = [...first.values()].filter((a) => a === 'lost' || a.status >= 500).length;

    // Every request without a final answer goes (again) through the survivor, under its key.
    const finals = new Map<string, Answer>();
    let retried = 0;
    const pending = [...requests];
    const retrier = async () => {
      for (let req = pending.shift(); req !== undefined; req = pending.shift()) {
        const answer = first.get(req.key);
        if (answer !== undefined && answer !== 'lost' && answer.status < 500) finals.set(req.key, answer);
        else {
          if (answer !== undefined) retried++;
          finals.set(req.key, await untilFinal(survivor, req));
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, retrier));

    // The kill caught requests at work, and their retries had a holder's work to finish.
    expect(interrupted).toBeGreaterThan(0);
    expect(atWork).toBeGreaterThan(0);
    expect(retried).toBe(interrupted);

    // Every request made its links: no "taken" for its own slug, no item refused.
    const linkIds = new Map<string, string>();
    for (const req of requests) {
      const answer = finals.get(req.key)!;
      const body = JSON.parse(answer.text) as { id: string } | { results: { status: number; link?: { id: string } }[] };
      if ('results' in body) {
        expect([answer.status, body.results.map((r) => r.status)]).toEqual([200, [201, 201, 201, 201]]);
        body.results.forEach((r, n) => linkIds.set(req.urls[n]!, r.link!.id));
      } else {
        expect([req.key, answer.status]).toEqual([req.key, 201]);
        linkIds.set(req.urls[0]!, body.id);
      }
    }

    // One link per destination, in Postgres and on the topic: the one answered.
    const { rows: claims } = await infra.pool.query<{ url: string; ids: string[]; states: string[] }>(
      `SELECT destination_url AS url, array_agg(link_id::text) AS ids, array_agg(state) AS states
         FROM slug_claims WHERE destination_url LIKE 'https://example.com/killed/%' GROUP BY destination_url`,
    );
    expect(claims).toHaveLength(linkIds.size);
    for (const claim of claims)
      expect(claim).toEqual({ ...claim, ids: [linkIds.get(claim.url)], states: ['committed'] });
    const created = await createdLinks();
    expect(created.size).toBe(linkIds.size);
    for (const [url, ids] of created) expect([url, [...ids]]).toEqual([url, [linkIds.get(url)]]);

    // No key is left at work, and each answers its final answer from now on, byte for byte.
    const { rows: stuck } = await infra.pool.query(
      'SELECT idempotency_key FROM idempotency_keys WHERE response_status IS NULL AND NOT abandoned',
    );
    expect(stuck).toEqual([]);
    for (const req of requests) {
      const replay = await send(survivor, req);
      expect([req.key, replay]).toEqual([req.key, { ...finals.get(req.key)!, replayed: true }]);
    }
  }, 240_000);
});
