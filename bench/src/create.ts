import type { LoadSummary } from './load';
import { runLoad, round } from './measure';
import type { BenchStack } from './stack';

export interface CreateFigures {
  linksPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  created: number;
  failed: number;
}

/** The rate the create's latency goal names (p99 ≤ 25 ms at 2,000 links/s, rate limits on). */
export const CREATE_RATE = 2000;

export interface CreateResult extends CreateFigures {
  /** The same load offered at 2,000 links/s: the latency at the goal's rate, not at saturation. */
  atRate?: CreateFigures & { offeredPerSecond: number };
}

/**
 * `POST /api/v1/links` with generated slugs at 50 connections: each request
 * claims a slug in Postgres, appends LinkCreated to Kafka with acks=all and
 * commits, so this is the write path's full cost. Then the same at 2,000
 * links/s offered, where the latency goal is judged.
 */
export async function benchCreate(
  root: string,
  stack: BenchStack,
  options: { durationSeconds: number; connections: number },
): Promise<CreateResult> {
  const writeApi = await stack.start('write-api');
  const load = (durationSeconds: number, ratePerSecond?: number) =>
    runLoad(root, {
      ratePerSecond,
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
  const atRate = await load(options.durationSeconds, CREATE_RATE);
  await writeApi.stop();
  const figures = (load: LoadSummary): CreateFigures => {
    const created = load.statusCounts['201'] ?? 0;
    return {
      linksPerSecond: round(created / options.durationSeconds),
      p50Ms: load.latencyP50Ms,
      p99Ms: load.latencyP99Ms,
      created,
      failed: load.requests - created + load.errors + load.timeouts,
    };
  };
  return { ...figures(result), atRate: { ...figures(atRate), offeredPerSecond: CREATE_RATE } };
}
