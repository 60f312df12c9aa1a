/**
 * The cost of a link's rules on the redirect thread, in a process of its own (no other part's JIT state or garbage):
 * `node --expose-gc bench/dist/rules-probe.js '{"calls":1000000,"rounds":5}'`. Each case answers the same visits,
 * rounds alternating cases; a case's figure is its median round. A link without rules costs one comparison (its cache
 * entry has no routing); a link with rules builds the request's Visit and chooses. Prints one JSON line.
 */
import { readFileSync } from 'node:fs';
import { Reader, type Response } from 'maxmind';
import '@shortlink/service-redirector';
import {
  chooseDestination,
  classifyAgent,
  compileRouting,
  type CompiledRouting,
  type LinkRouting,
  preferredLanguage,
  queryParameter,
  variantBucket,
  type Visit,
} from '@shortlink/redirect-rules';

export interface RulesProbe {
  calls: number;
  rounds: number;
  /** ns a redirect, by case (median round). */
  ns: {
    noRules: number;
    fiveRulesFirstHolds: number;
    fiveRulesNoneHolds: number;
    fiveRulesNoneHoldsGeoIp: number;
    fiveRulesThenVariants: number;
  };
  /** ns a call of each fact's reader. */
  facts: {
    classifyAgent: number;
    preferredLanguage: number;
    queryParameter: number;
    variantBucket: number;
    geoIp: number;
  };
  /** Heap bytes a compiled five-rule routing adds to its cache entry; a link without rules adds none. */
  compiledFiveRulesBytes: number;
}

/**
 * The redirect part's desktop Chrome, written out: importing redirect.ts loads the bench's stack (stack.ts), which
 * makes String's built-ins about 3 times slower in this process (preferredLanguage 250 ns against 70); the redirector
 * loads nothing of it. The redirector's own modules are loaded, so the figures are taken among them.
 */
const CHROME_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

const FIVE_RULES: LinkRouting = {
  rules: [
    { when: { device: ['mobile'], country: ['DE', 'AT', 'CH'] }, destinationUrl: 'https://example.com/dach/app' },
    { when: { os: ['ios'] }, destinationUrl: 'https://apps.apple.com/app/id000000001' },
    { when: { language: ['de', 'fr', 'it'] }, destinationUrl: 'https://example.com/eu' },
    { when: { query: { name: 'utm_source', values: ['partner'] } }, destinationUrl: 'https://example.com/partner' },
    { when: { country: ['JP', 'KR', 'TW'] }, destinationUrl: 'https://example.com/asia' },
  ],
  variants: null,
};
const WITH_VARIANTS: LinkRouting = {
  ...FIVE_RULES,
  variants: [
    { destinationUrl: 'https://example.com/a', weight: 50 },
    { destinationUrl: 'https://example.com/b', weight: 50 },
  ],
};

interface Entry {
  location: string;
  routing: CompiledRouting | null;
}

interface Request {
  userAgent: string | undefined;
  acceptLanguage: string | undefined;
  query: string;
  ip: string;
}

/** What the redirect route would do with a cached link: the link's own Location unless its routing picks another. */
function locationFor(entry: Entry, request: Request, countryOf: (ip: string) => string): string {
  if (entry.routing === null) return entry.location;
  const visit: Visit = {
    userAgent: request.userAgent,
    acceptLanguage: request.acceptLanguage,
    query: request.query,
    address: request.ip,
    countryOf,
  };
  return chooseDestination(entry.routing, visit)?.location ?? entry.location;
}

/**
 * ns a call, in CPU time (user and system, every thread of the process): on a machine shared with other work, wall
 * time counts the other work's turns too.
 */
function timed(calls: number, run: (i: number) => number): number {
  let sink = 0;
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) sink += run(i);
  const used = process.cpuUsage(started);
  if (sink === -1) process.stdout.write('');
  return ((used.user + used.system) * 1000) / calls;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const round2 = (v: number) => Math.round(v * 100) / 100;

function main(): void {
  const { calls, rounds } = JSON.parse(process.argv[2] ?? '{}') as { calls: number; rounds: number };
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const path = require.resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
  const reader = new Reader<Response & { country_code?: string }>(readFileSync(path));
  const geoIp = (ip: string) => reader.get(ip)?.country_code ?? 'XX';
  // A fact looked up once a visitor earlier (the click path's memo would serve it) against one looked up every time.
  const memo = new Map<string, string>();
  const remembered = (ip: string) => memo.get(ip) ?? 'XX';

  // 1024 visitors from public addresses, US desktops in English with a newsletter's query: no rule holds for them.
  const requests: Request[] = Array.from({ length: 1024 }, (_, i) => ({
    userAgent: CHROME_UA,
    acceptLanguage: 'en-US,en;q=0.9',
    query: 'utm_source=newsletter&utm_campaign=summer',
    ip: `${(i % 200) + 3}.${(i * 7) % 256}.${(i * 13) % 256}.${i % 256}`,
  }));
  for (const r of requests) memo.set(r.ip, geoIp(r.ip));
  // German iPhones: the first rule holds.
  const iphones = requests.map((r) => ({ ...r, userAgent: IPHONE_UA, ip: '2.16.0.1' }));
  const inGermany = () => 'DE';
  const compile = (routing: LinkRouting) =>
    compileRouting(routing, { linkId: '0b0f6f0e-3f43-4c55-9e5c-6f1b1b0c1d2e', secret: 'bench-secret' });
  const plain: Entry = { location: 'https://example.com/landing', routing: null };
  const five: Entry = { location: 'https://example.com/landing', routing: compile(FIVE_RULES) };
  const split: Entry = { location: 'https://example.com/landing', routing: compile(WITH_VARIANTS) };
  const mask = requests.length - 1;

  const cases = {
    noRules: (i: number) => locationFor(plain, requests[i & mask]!, remembered).length,
    fiveRulesFirstHolds: (i: number) => locationFor(five, iphones[i & mask]!, inGermany).length,
    fiveRulesNoneHolds: (i: number) => locationFor(five, requests[i & mask]!, remembered).length,
    fiveRulesNoneHoldsGeoIp: (i: number) => locationFor(five, requests[i & mask]!, geoIp).length,
    fiveRulesThenVariants: (i: number) => locationFor(split, requests[i & mask]!, remembered).length,
  };
  const seen: Record<keyof typeof cases, number[]> = {
    noRules: [],
    fiveRulesFirstHolds: [],
    fiveRulesNoneHolds: [],
    fiveRulesNoneHoldsGeoIp: [],
    fiveRulesThenVariants: [],
  };
  for (const run of Object.values(cases)) timed(Math.min(calls, 100_000), run);
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of Object.entries(cases) as [keyof typeof cases, (i: number) => number][]) {
      seen[name].push(timed(calls, run));
    }
  }
  const request = requests[0]!;
  const readers: Record<keyof RulesProbe['facts'], (i: number) => number> = {
    classifyAgent: () => classifyAgent(request.userAgent),
    preferredLanguage: () => preferredLanguage(request.acceptLanguage),
    queryParameter: () => queryParameter(request.query, 'utm_source')?.length ?? 0,
    variantBucket: (i) => variantBucket(12345, requests[i & mask]!.ip),
    geoIp: (i) => geoIp(requests[i & mask]!.ip).length,
  };
  // Warmed as the cases are, then timed: the median of the rounds.
  for (const read of Object.values(readers)) timed(Math.min(calls, 100_000), read);
  const facts = Object.fromEntries(
    Object.entries(readers).map(([name, read]) => [
      name,
      median(Array.from({ length: rounds }, () => timed(calls, read))),
    ]),
  ) as RulesProbe['facts'];

  // Memory: 10,000 compiled routings held, over the heap without them.
  const held: (CompiledRouting | null)[] = [];
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 10_000; i++) {
    held.push(compileRouting(JSON.parse(JSON.stringify(FIVE_RULES)) as LinkRouting, { linkId: `${i}`, secret: 's' }));
  }
  gc();
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / held.length;

  const result: RulesProbe = {
    calls,
    rounds,
    ns: Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, round2(median(v))])) as RulesProbe['ns'],
    facts: Object.fromEntries(Object.entries(facts).map(([k, v]) => [k, round2(v)])) as RulesProbe['facts'],
    compiledFiveRulesBytes: Math.round(bytes),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main();
