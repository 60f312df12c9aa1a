import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { createDestinationLookup } from './destination-lookup';
import { startDnsTestServer, type DnsBehaviour, type DnsTestServer } from './dns-test-server';

const NAMES: Record<string, DnsBehaviour> = {
  'page.example': { addresses: ['93.184.216.34', '2606:2800:220:1::1'] },
  'v4only.example': { addresses: ['93.184.216.35'] },
  'nowhere.example': 'nxdomain',
  'broken.example': 'servfail',
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

  it('answers localhost itself, and an address as it is, without asking the server', async () => {
    const before = server.asked.length;
    await expect(lookUpAll('localhost')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    await expect(lookUpAll('localhost', 6)).resolves.toEqual([{ address: '::1', family: 6 }]);
    await expect(lookUpOne('api.localhost')).resolves.toEqual(['127.0.0.1', 4]);
    await expect(lookUpOne('10.0.0.1')).resolves.toEqual(['10.0.0.1', 4]);
    expect(server.asked.length).toBe(before);
  });

  it('gives up on a name whose server never answers within its tries, and holds nothing else back meanwhile', async () => {
    const started = performance.now();
    // Far more than libuv's two threads for getaddrinfo: each of these held one for 10 s with dns.lookup.
    const dead = Array.from({ length: 64 }, (_, i) =>
      lookUpOne(`dead-${i}.example`).then(
        () => 'resolved',
        (err: NodeJS.ErrnoException) => err.code,
      ),
    );
    await expect(lookUpOne('page.example')).resolves.toEqual(['93.184.216.34', 4]);
    const answeredAfter = performance.now() - started;
    expect(new Set(await Promise.all(dead))).toEqual(new Set(['ETIMEOUT']));
    const gaveUpAfter = performance.now() - started;
    // 200 ms, then 400 ms: every dead name given up on together, the live one answered at once.
    expect(answeredAfter).toBeLessThan(150);
    expect(gaveUpAfter).toBeLessThan(2000);
  });
});
