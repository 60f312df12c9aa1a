/**
 * `node bench/dist/rate-limit-stores.js`: what one rate-limit check costs in each candidate store (this process's
 * memory, Redis on REDIS_URL, Postgres on a scratch database with a pool of 10), measured as the write API uses it: one
 * rate-limiter-flexible `consume` a request over 1,000 keys. Open loop: 2,000 checks a second for 10 s, each timed from
 * when it was due; closed loop: 50 in flight for 5 s, the most a store gives one process
 * (docs/decisions/0052-rate-limits-per-key.md).
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { createScratchPostgres } from '@shortlink/testing';
import { percentiles, round, sleep } from './measure';

const KEYS = 1000;
const POINTS = 10_000_000;

async function openLoop(limiter: RateLimiterAbstract, perSecond: number, seconds: number) {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const total = perSecond * seconds;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    // From when it was due (a store that falls behind is charged for the wait), or when sent if that was earlier.
    const from = Math.min(due, performance.now());
    inFlight.push(
      limiter.consume(`key-${i % KEYS}`).then(
        () => void latencies.push(performance.now() - from),
        () => void errors++,
      ),
    );
    if (inFlight.length > 5000) await Promise.all(inFlight.splice(0));
  }
  await Promise.all(inFlight);
  return { ...percentiles(latencies), errors };
}

async function closedLoop(limiter: RateLimiterAbstract, concurrency: number, seconds: number) {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await limiter.consume(`key-${n++ % KEYS}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { perSecond: round(latencies.length / seconds, 0), ...percentiles(latencies) };
}

async function measure(name: string, limiter: RateLimiterAbstract) {
  await closedLoop(limiter, 10, 1); // warm-up: JIT, connections, the Lua script loaded
  const open = await openLoop(limiter, 2000, 10);
  const closed = await closedLoop(limiter, 50, 5);
  console.log(JSON.stringify({ store: name, openLoop2000PerSecond: open, closedLoop50: closed }));
}

async function main(): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableOfflineQueue: true });
  const db = await createScratchPostgres(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shortlink');
  const pool = new pg.Pool({ connectionString: db.url, max: 10 });
  try {
    const options = { points: POINTS, duration: 60 };
    await measure('memory', new RateLimiterMemory(options));
    await measure('redis', new RateLimiterRedis({ ...options, storeClient: redis, keyPrefix: `bench-${Date.now()}` }));
    const postgres = await new Promise<RateLimiterPostgres>((resolve, reject) => {
      const limiter: RateLimiterPostgres = new RateLimiterPostgres(
        { ...options, storeClient: pool, tableName: 'rate_limits' },
        (err?: Error) => (err ? reject(err) : resolve(limiter)),
      );
    });
    await measure('postgres', postgres);
  } finally {
    redis.disconnect();
    await pool.end();
    await db.drop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
