import { runLoad, round } from './measure';
import type { BenchStack } from './stack';

export interface BulkResult {
  linksPerSecond: number;
  /** Latency of one bulk request (100 links). */
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Links the table of slug claims holds after the run: what was created, not what was asked. */
  created: number;
  failedRequests: number;
}

const LINKS_PER_REQUEST = 100;
const DESTINATION = 'https://example.com/landing?utm_source=bench-bulk';

/**
 * `POST /api/v1/links/bulk` with 100 generated-slug links per request over
 * several connections: each request shares one claim statement, one produce
 * request (acks=all) and one commit among its links, and with its neighbours.
 * Links per second are counted in Postgres after the run.
 */
export async function benchBulk(
  root: string,
  stack: BenchStack,
  options: { durationSeconds: number; connections: number },
): Promise<BulkResult> {
  const writeApi = await stack.start('write-api');
  const body = JSON.stringify({
    links: Array.from({ length: LINKS_PER_REQUEST }, () => ({ url: DESTINATION, tag: 'bench' })),
  });
  const load = (durationSeconds: number) =>
    runLoad(root, {
      url: writeApi.url,
      connections: options.connections,
      durationSeconds,
      method: 'POST',
      paths: ['/api/v1/links/bulk'],
      headers: { authorization: `Bearer ${stack.key}`, 'content-type': 'application/json' },
      body,
    });
  await load(Math.min(2, options.durationSeconds)); // warm-up: JIT, pool connections, producer
  const count = async () =>
    Number(
      (
        await stack.pool.query<{ n: string }>('SELECT count(*) AS n FROM slug_claims WHERE destination_url = $1', [
          DESTINATION,
        ])
      ).rows[0]?.n ?? 0,
    );
  const before = await count();
  const result = await load(options.durationSeconds);
  await writeApi.stop();
  const created = (await count()) - before;
  return {
    linksPerSecond: round(created / options.durationSeconds),
    p50Ms: result.latencyP50Ms,
    p99Ms: result.latencyP99Ms,
    requests: result.requests,
    created,
    failedRequests: result.requests - (result.statusCounts['200'] ?? 0) + result.errors + result.timeouts,
  };
}
