/**
 * The load generator, run as its own process so it does not share an event
 * loop with what it measures: `node bench/dist/load.js '<json options>'`.
 * Prints one JSON summary line.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { clientAddressSampler, type ClientAddresses } from './client-addresses';
import { seededRandom } from './seeded-random';
import { slugOfRank, zipfSampler } from './zipf';

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  /** Stop after this many requests instead (durationSeconds then does not apply). */
  amount?: number;
  /** Cycled one request after another (each connection takes the next). */
  paths: string[];
  /** More paths, one a line, cycled after `paths`: lists too long for a command line. */
  pathsFile?: string;
  /** Instead of the paths: each request's slug drawn afresh, by popularity (see zipf.ts). */
  zipf?: { links: number; exponent: number; seed: number; prefix: string };
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Each request from an address of this kind, as `X-Forwarded-For` (see client-addresses.ts); unset: none. */
  clientAddresses?: { kind: ClientAddresses; seed: number };
  /** An offered load, in requests per second over all connections; unset: as fast as answers come. */
  ratePerSecond?: number;
}

export interface LoadSummary {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  requests: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
  const paths = options.pathsFile
    ? [
        ...options.paths,
        ...readFileSync(options.pathsFile, 'utf8')
          .split('\n')
          .filter((p) => p !== ''),
      ]
    : options.paths;
  let next = 0;
  const nextPath = options.zipf ? zipfPaths(options.zipf) : () => paths[next++ % paths.length] ?? '/';
  const nextAddress = options.clientAddresses
    ? clientAddressSampler(options.clientAddresses.kind, options.clientAddresses.seed)
    : () => undefined;
  const headers = options.headers ?? {};
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.durationSeconds } : { amount: options.amount }),
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    ...(options.ratePerSecond === undefined ? {} : { overallRate: options.ratePerSecond }),
    requests: [
      {
        setupRequest: (request) => {
          const address = nextAddress();
          return {
            ...request,
            path: nextPath(),
            ...(address === undefined ? {} : { headers: { ...headers, 'x-forwarded-for': address } }),
          };
        },
      },
    ],
  });
  const statusCounts = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, (stat as { count: number }).count]),
  );
  const summary: LoadSummary = {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    requests: result.requests.total,
    statusCounts,
    errors: result.errors,
    timeouts: result.timeouts,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

function zipfPaths({ links, exponent, seed, prefix }: NonNullable<LoadOptions['zipf']>): () => string {
  const rank = zipfSampler(links, exponent, seededRandom(seed));
  return () => `/${slugOfRank(rank(), links, prefix)}`;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
