import { z } from 'zod';

/** Accepts the spellings operators actually type for a boolean switch. */
export const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const brokerList = z
  .string()
  .min(1)
  .transform((s) =>
    s
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[^\s:]+:\d+$/, 'expected host:port')).min(1));

export const kafkaEnv = z.object({
  KAFKA_BROKERS: brokerList.default(['127.0.0.1:9092']),
  /** Prefix for every topic and consumer group, to share a cluster between environments. */
  KAFKA_TOPIC_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/)
    .default(''),
  /** How long a silent consumer keeps its partitions before the group hands them to another. */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6000).max(300_000).default(30_000),
});
export type KafkaEnv = z.infer<typeof kafkaEnv>;

export const postgresEnv = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
    .default('postgres://postgres@127.0.0.1:5432/shortlink'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
});
export type PostgresEnv = z.infer<typeof postgresEnv>;

export const clickhouseEnv = z.object({
  CLICKHOUSE_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8123'),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('shortlink'),
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
});
export type ClickHouseEnv = z.infer<typeof clickhouseEnv>;

/** Read by whoever owns the ClickHouse schema (the click projector): how the tables are laid out. */
export const clickhouseClusterEnv = z.object({
  /**
   * A cluster of the ClickHouse servers' `remote_servers`: the migrations
   * create replicated tables on every shard, with Distributed tables under
   * the names the queries use (docs/clickhouse-operators.md). Unset or empty: one server.
   */
  CLICKHOUSE_CLUSTER: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a cluster name of remote_servers')
      .optional(),
  ),
});

export const httpEnv = z.object({
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  TRUST_PROXY: booleanFlag.default(false),
  /**
   * On SIGTERM, how long the process keeps serving while /healthz already
   * answers 503, so a load balancer stops sending before the port closes.
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /**
   * How long a request may take to arrive whole, body included: a client
   * that declares a body and stops sending is answered 408 after this.
   */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(30_000),
  /**
   * Load shedding of the API's routes (never of redirects): a request that would be the process's next beyond this
   * many in hand is answered 503 `overloaded` with Retry-After at once, rather than queued. 0: no bound. As many as
   * the listen queue holds: an integrator's burst of 500 creates, each read back at once, is served whole (the API
   * contract suites); the entry point's bounds are the tighter ones in a fleet.
   */
  MAX_REQUESTS_IN_FLIGHT: z.coerce.number().int().min(0).default(4096),
  /** And while the event loop runs later than this (the process is short of CPU), in ms. 0: not watched. */
  MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(1000),
  /**
   * Origins whose pages may call the API from a browser (CORS), comma-separated
   * (`https://app.example.com,http://localhost:5173`), or `*` for any. Empty: none.
   */
  CORS_ORIGINS: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.string().regex(/^(\*|https?:\/\/[^/\s?#]+)$/, 'expected * or origins such as https://app.example.com'))
        .refine((origins) => !origins.includes('*') || origins.length === 1, 'use * alone, or name the origins'),
    )
    .default([]),
});
export type HttpEnv = z.infer<typeof httpEnv>;

export const logEnv = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` lines or `pretty` text. Unset: pretty on a terminal, JSON otherwise (a collector reads JSON). */
  LOG_FORMAT: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['json', 'pretty']).optional()),
});

export const publicEnv = z.object({
  /** Base of every short URL: `{PUBLIC_BASE_URL}/{slug}`. */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .transform((u) => u.replace(/\/+$/, ''))
    .default('http://localhost:3000'),
});
export type PublicEnv = z.infer<typeof publicEnv>;

export const visitorEnv = z.object({
  /**
   * Key of the HMAC that turns visitor IPs into visitor keys. Unset: the
   * installation generates one and keeps it in Postgres.
   */
  VISITOR_HASH_SECRET: z.string().min(16, 'use at least 16 characters').optional(),
});

const redisUrl = z.string().regex(/^rediss?:\/\/[^\s]+$/, 'expected a redis:// or rediss:// URL');
/** Requests a key may make per minute on a plan; 10 million caps a typo, not a real plan. */
const requestsPerMinute = z.coerce.number().int().min(1).max(10_000_000);

/**
 * Rate limits per API key. A service run as its own process counts in Redis,
 * so that every process of the fleet shares each key's count; the address
 * defaults to loopback, as every other server's does.
 */
export const rateLimitEnv = z.object({
  REDIS_URL: redisUrl.default('redis://127.0.0.1:6379'),
  RATE_LIMIT_FREE_PER_MINUTE: requestsPerMinute.default(60),
  RATE_LIMIT_PRO_PER_MINUTE: requestsPerMinute.default(3000),
  /**
   * How long a request waits for Redis's count before it is counted in this
   * process instead (for a second): short, so that a Redis outage costs
   * requests this much and no more.
   */
  RATE_LIMIT_REDIS_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(250),
});
export type RateLimitEnv = z.infer<typeof rateLimitEnv>;

/**
 * `npm start` runs the write API and the read API in one process, which can
 * count in its own memory: Redis only when REDIS_URL is set (several
 * `npm start` processes behind one load balancer).
 */
export const systemRateLimitEnv = rateLimitEnv.extend({ REDIS_URL: redisUrl.optional() });
