/**
 * The load generator, run as its own process so it does not share an event
 * loop with what it measures: `node bench/dist/load.js '<json options>'`.
 * Prints one JSON summary line.
 */
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  /** Cycled one request after another (each connection takes the next). */
  paths: string[];
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
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
  let next = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    ...(options.ratePerSecond === undefined ? {} : { overallRate: options.ratePerSecond }),
    requests: [
      {
        setupRequest: (request) => {
          const path = options.paths[next++ % options.paths.length] ?? '/';
          return { ...request, path };
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

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
