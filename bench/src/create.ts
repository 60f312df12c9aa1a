import { runLoad, round } from './measure';
import type { BenchStack } from './stack';

export interface CreateResult {
  linksPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  created: number;
  failed: number;
}

/**
 * `POST /api/v1/links` with generated slugs at 50 connections: each request
 * claims a slug in Postgres, appends LinkCreated to Kafka with acks=all and
 * commits, so this is the write path's full cost.
 */
export async function benchCreate(
  root: string,
  stack: BenchStack,
  options: { durationSeconds: number; connections: number },
): Promise<CreateResult> {
  const writeApi = await stack.start('write-api');
  const load = (durationSeconds: number) =>
    runLoad(root, {
      url: writeApi.url,
      connections: options.connections,
      durationSeconds,
      method: 'POST',
      paths: ['/api/v1/links'],
      headers: { authorization: `Bearer ${stack.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/landing?utm_source=bench', tag: 'bench' }),
    });
  await load(Math.min(2, options.durationSeconds)); // warm-up: JIT, pool connections, producer
  const result = await load(options.durationSeconds);
  await writeApi.stop();
  const created = result.statusCounts['201'] ?? 0;
  return {
    linksPerSecond: round(created / options.durationSeconds),
    p50Ms: result.latencyP50Ms,
    p99Ms: result.latencyP99Ms,
    created,
    failed: result.requests - created + result.errors + result.timeouts,
  };
}
