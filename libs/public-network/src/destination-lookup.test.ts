import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { createDestinationLookup } from './destination-lookup';
import { startDnsTestServer, type DnsBehaviour, type DnsTestServer } from './dns-test-server';

const NAMES: Record<string, DnsBehaviour> = {
  'page.example': { addresses: ['93.184.216.34', '2606:2800:220:1::1'] },
  'v4only.example': { addresses: ['93.184.216.35'] },
  'nowhere.example': 'nxdomain',
  'broken.example': 'servfail',
  'short.example': { addresses: ['93.184.216.36', '2606:2800::36'], ttlSeconds: 1 },
  'shared.example': { addresses: ['93.184.216.37'] },
  'live.example': { addresses: ['93.184.216.38'] },
};

let server: DnsTestServer;
let lookup: LookupFunction;

beforeAll(async () => {
  // Any name not listed is never answered: its servers are down, or drop the query.
  server = await startDnsTestServer((name) => NAMES[name] ?? 'silent');
  lookup = createDestinationLookup({ timeoutMs: 200, tries: 2, servers: [server.address] });
});
afterAll(() => server.close());

const lookUpAll = (hostname: string, family = 0) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    lookup(hostname, { all: true, family }, (err, found) => (err ? reject(err) : resolve(found as LookupAddress[]))),
  );
const lookUpOne = (hostname: string) =>
  new Promise<[string, number]>((resolve, reject) =>
    lookup(hostname, {}, (err, address, family) => (err ? reject(err) : resolve([address as string, family!]))),
  );

describe("a destination's name, resolved", () => {
  it('gives every address of the name, or the first one, IPv4 first', async () => {
    await expect(lookUpAll('page.example')).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    await expect(lookUpAll('page.example', 6)).resolves.toEqual([{ address: '2606:2800:220:1::1', family: 6 }]);
    await expect(lookUpOne('page.example')).resolves.toEqual(['93.184.216.34', 4]);
    await expect(lookUpAll('v4only.example')).resolves.toEqual([{ address: '93.184.216.35', family: 4 }]);
  });

  it('says a name that does not exist does not resolve, and a failing server is worth asking again', async () => {
    await expect(lookUpOne('nowhere.example')).rejects.toMatchObject({ code: 'ENOTFOUND', syscall: 'query' });
    await expect(lookUpOne('broken.example')).rejects.toMatchObject({ code: 'ESERVFAIL', syscall: 'query' });
  });

  it('says a name DNS cannot carry does not resolve, as a name that does not exist', async () => {
    // Both pass the URL parser; neither can be asked of a name server.
    for (const name of ['a..b.example', `${'a'.repeat(64)}.example`]) {
      expect(new URL(`http://${name}/`).hostname).toBe(name);
      await expect(lookUpOne(name)).rejects.toMatchObject({ code: 'ENOTFOUND', syscall: 'query' });
    }
  });

  it('answers localhost itself, and an address as it is, without asking the server', async () => {
    const before = server.asked.length;
    await expect(lookUpAll('localhost')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    await expect(lookUpAll('localhost', 6)).resolves.toEqual([{ address: '::1', family: 6 }]);
    await expect(lookUpOne('api.localhost')).resolves.toEqual(['127.0.0.1', 4]);
    await expect(lookUpOne('10.0.0.1')).resolves.toEqual(['10.0.0.1', 4]);
    expect(server.asked.length).toBe(before);
  });

  it('gives up on a name whose server never answers within its tries, and holds nothing else back meanwhile', async () => {
    // Nothing kept: the live name is asked of the server while the dead ones wait.
    const lookup = createDestinationLookup({ timeoutMs: 200, tries: 2, servers: [server.address], maxTtlMs: 0 });
    const lookUpOne = (hostname: string) =>
      new Promise<[string, number]>((resolve, reject) =>
        lookup(hostname, {}, (err, address, family) => (err ? reject(err) : resolve([address as string, family!]))),
      );
    const started = performance.now();
    // Far more than libuv's two threads for getaddrinfo: each of these held one for 10 s with dns.lookup.
    const dead = Array.from({ length: 64 }, (_, i) =>
      lookUpOne(`dead-${i}.example`).then(
        () => 'resolved',
        (err: NodeJS.ErrnoException) => err.code,
      ),
    );
    await expect(lookUpOne('live.example')).resolves.toEqual(['93.184.216.38', 4]);
    const answeredAfter = performance.now() - started;
    expect(new Set(await Promise.all(dead))).toEqual(new Set(['ETIMEOUT']));
    const gaveUpAfter = performance.now() - started;
    // 200 ms, then 400 ms: every dead name given up on together, the live one answered at once.
    expect(answeredAfter).toBeLessThan(150);
    expect(gaveUpAfter).toBeLessThan(2000);
  });

  const askedFor = (name: string) => server.asked.filter((n) => n === name).length;

  it("asks a name's server once while its answer lasts, and again once its TTL has run out", async () => {
    await expect(lookUpOne('short.example')).resolves.toEqual(['93.184.216.36', 4]);
    await expect(lookUpOne('short.example')).resolves.toEqual(['93.184.216.36', 4]);
    expect(askedFor('short.example')).toBe(2); // A and AAAA, once
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await expect(lookUpOne('short.example')).resolves.toEqual(['93.184.216.36', 4]);
    expect(askedFor('short.example')).toBe(4);
  });

  it('asks once for the lookups of one name at the same time', async () => {
    const all = await Promise.all(Array.from({ length: 20 }, () => lookUpOne('shared.example')));
    expect(new Set(all.map(([address]) => address))).toEqual(new Set(['93.184.216.37']));
    expect(askedFor('shared.example')).toBe(2);
  });

  it('remembers a name that does not exist, and asks again after a server failed', async () => {
    const before = { nowhere: askedFor('nowhere.example'), broken: askedFor('broken.example') };
    for (let i = 0; i < 3; i++) {
      await expect(lookUpOne('nowhere.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
      await expect(lookUpOne('broken.example')).rejects.toMatchObject({ code: 'ESERVFAIL' });
    }
    // The earlier test asked for nowhere.example already: known since, not asked again.
    expect(askedFor('nowhere.example') - before.nowhere).toBe(0);
    expect(askedFor('broken.example') - before.broken).toBeGreaterThanOrEqual(3);
  });
});
