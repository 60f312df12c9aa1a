import type { ContractTarget } from './api-contract';
import { loadConformance, type Conformance } from './openapi-conformance';

/**
 * The contract under load, as integrators and redirect traffic produce it: two
 * accounts creating at once with fresh keys, every 201 followed at once by its
 * redirect and by reads from both accounts, a key issued mid-burst, and hostile
 * bodies mixed in. One request at a time hides interleaving bugs; this does not.
 */
export const CONCURRENT_CREATES = 500;

interface Outcome {
  failures: string[];
  statuses: Map<number, number>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
type Json = any;

export function describeConcurrentContract(mode: string, target: () => ContractTarget): void {
  describe(`API contract under concurrent load (${mode})`, () => {
    const run = Math.random().toString(36).slice(2, 7);
    let conformance: Conformance;

    beforeAll(async () => {
      conformance = await loadConformance(target().url);
    });

    it(`${CONCURRENT_CREATES} creates from two accounts, each followed at once by its redirect and reads`, async () => {
      const accounts = await Promise.all([target().issueKey('pro'), target().issueKey('pro')]);
      const outcome: Outcome = { failures: [], statuses: new Map() };
      const { url } = target();
      const fail = (what: string): void => void outcome.failures.push(what);
      const call = async (path: string, init: RequestInit = {}): Promise<Response> => {
        const res = await fetch(`${url}${path}`, { redirect: 'manual', ...init });
        outcome.statuses.set(res.status, (outcome.statuses.get(res.status) ?? 0) + 1);
        // Checked against the API document; a mismatch is recorded and asserted below.
        return conformance.check(init.method ?? 'GET', path, res).catch(() => res);
      };
      const create = (key: string, body: unknown) =>
        call('/api/v1/links', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        });
      const read = (key: string, slug: string) =>
        call(`/api/v1/links/${slug}`, { headers: { authorization: `Bearer ${key}` } });

      const chain = async (i: number): Promise<void> => {
        const owner = accounts[i % 2] as string;
        const other = accounts[(i + 1) % 2] as string;
        const destinationUrl = `https://example.com/${run}/${i}?n=${i}`;
        const body =
          i % 3 === 0 ? { url: destinationUrl, customSlug: `k-${run}-${i}`, tag: `t${i}` } : { url: destinationUrl };
        const created = await create(owner, body);
        if (created.status !== 201) return fail(`create ${i}: ${created.status} ${await created.text()}`);
        const link: Json = await created.json();
        const redirect = await call(`/${link.slug}`);
        await redirect.arrayBuffer();
        if (redirect.status !== 302 || redirect.headers.get('location') !== destinationUrl) {
          return fail(`redirect ${i} (${link.slug}): ${redirect.status} → ${redirect.headers.get('location')}`);
        }
        const [mine, theirs] = await Promise.all([read(owner, link.slug), read(other, link.slug)]);
        const read1: Json = await mine.json();
        await theirs.arrayBuffer();
        if (mine.status !== 200 || read1.id !== link.id || read1.destinationUrl !== destinationUrl) {
          fail(`owner read ${i} (${link.slug}): ${mine.status} ${JSON.stringify(read1)}`);
        }
        if (theirs.status !== 404) fail(`other account read ${i} (${link.slug}): ${theirs.status}`);
      };

      // Poison among neighbours: bodies Postgres cannot hold, sent in the same burst.
      const hostile = async (i: number): Promise<void> => {
        const owner = accounts[i % 2] as string;
        const bodies = [
          `{"url":"https://example.com/${run}/\\u0000"}`,
          `{"url":"https://example.com/${run}/h${i}","tag":"a\\u0000b"}`,
          `{"url":"https://example.com/${run}/h${i}","tag":"\\ud800"}`,
          `{"url":"https://example.com/${run}/a\\tb"}`,
        ];
        const res = await create(owner, bodies[i % bodies.length]);
        const body: Json = await res.json().catch(() => null);
        if (res.status !== 400 || body?.error !== 'Invalid request body') {
          fail(`hostile ${i}: ${res.status} ${JSON.stringify(body)}`);
        }
      };

      // A key issued while the burst runs works at once.
      const midBurstKey = async (): Promise<void> => {
        const key = await target().issueKey('free');
        const res = await create(key, { url: `https://example.com/${run}/mid-burst` });
        if (res.status !== 201) fail(`key issued mid-burst: ${res.status} ${await res.text()}`);
      };

      await Promise.all([
        ...Array.from({ length: CONCURRENT_CREATES }, (_, i) => chain(i)),
        ...Array.from({ length: 40 }, (_, i) => hostile(i)),
        midBurstKey(),
      ]);

      expect(outcome.failures).toEqual([]);
      expect(conformance.takeViolations()).toEqual([]);
      expect(conformance.checked).toBeGreaterThan(CONCURRENT_CREATES * 4);
      const serverErrors = [...outcome.statuses].filter(([status]) => status >= 500);
      expect(serverErrors).toEqual([]);
      expect(outcome.statuses.get(401) ?? 0).toBe(0);
    }, 180_000);
  });
}
