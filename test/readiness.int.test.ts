import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { memoryRateLimiter } from '@shortlink/accounts';
import { buildProcessServer, type ServiceModule } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { createPool } from '@shortlink/postgres';
import { composeRedirector, createRedirector } from '@shortlink/service-redirector';
import { composeWriteApi, createWriteApi } from '@shortlink/service-write-api';
import { openTestInfra, PUBLIC_BASE_URL, silentLogger, type TestInfra } from './support/link-system';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

/** `/readyz` against real Postgres and Kafka, Postgres made unreachable through a proxy or a closed port. */
let infra: TestInfra;

beforeAll(async () => {
  infra = await openTestInfra();
});
afterAll(() => infra?.close());

interface ReadyBody {
  dependencies: { module: string; name: string; state: string; required: boolean; error?: string }[];
}

async function serve(modules: ServiceModule[]): Promise<FastifyInstance> {
  return buildProcessServer(
    modules,
    { name: 'test', trustProxy: false, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
    () => true,
  );
}

const readyz = async (app: FastifyInstance) => {
  const res = await app.inject({ method: 'GET', url: '/readyz' });
  return { status: res.statusCode, body: res.json<ReadyBody>() };
};

describe('the write API', () => {
  function writeApi(databaseUrl: string) {
    const pool = createPool({ connectionString: databaseUrl, max: 2, applicationName: 'readiness-test' });
    const deps = composeWriteApi(
      {
        PUBLIC_BASE_URL,
        DATABASE_URL: databaseUrl,
        DATABASE_POOL_SIZE: 2,
        WEBHOOKS_ALLOW_HTTP: false,
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: false,
        DNS_SERVERS: [],
        DNS_TIMEOUT_MS: 2000,
      },
      {
        pool,
        kafka: infra.log,
        names: infra.names,
        logger: silentLogger,
        metrics: createMetricsRegistry({ processMetrics: false }),
        rateLimiter: memoryRateLimiter({ free: 60, pro: 3000 }),
      },
    );
    return { pool, deps, module: createWriteApi(deps) };
  }

  it('is ready with its Postgres and Kafka reachable', async () => {
    const { pool, deps, module } = writeApi(infra.db.url);
    const app = await serve([module]);
    try {
      const { status, body } = await readyz(app);
      expect(status).toBe(200);
      expect(body.dependencies.map((d) => [d.name, d.state])).toEqual([
        ['postgres', 'up'],
        ['kafka', 'up'],
      ]);
    } finally {
      await app.close();
      await deps.stop?.();
      await pool.end();
    }
  });

  it('answers 503 when its Postgres is unreachable, naming it, and Kafka still up', async () => {
    const { pool, deps, module } = writeApi('postgres://postgres@127.0.0.1:1/shortlink');
    const app = await serve([module]);
    try {
      const { status, body } = await readyz(app);
      expect(status).toBe(503);
      expect(body.dependencies).toEqual([
        {
          module: 'write-api',
          name: 'postgres',
          state: 'down',
          required: true,
          error: expect.stringMatching(/ECONNREFUSED/),
        },
        { module: 'write-api', name: 'kafka', state: 'up', required: true },
      ]);
    } finally {
      await app.close();
      await deps.stop?.();
      await pool.end();
    }
  });
});

describe('the redirector', () => {
  let proxy: TcpProxy;
  const slug = `ready-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    proxy = await startTcpProxy(Number(new URL(infra.db.url).port || 5432));
    await infra.pool.query(
      `INSERT INTO links (slug, link_id, account_id, destination_url, created_at, event_id, source_partition, source_offset)
       VALUES ($1, $2, $3, 'https://example.com/ready', now(), $4, 0, 0)`,
      [slug, randomUUID(), randomUUID(), randomUUID()],
    );
  });
  afterAll(() => proxy?.close());

  /** A redirector whose Postgres is reached through the proxy, composed as every entry point composes it. */
  async function redirector() {
    const url = new URL(infra.db.url);
    url.port = String(proxy.port);
    const pool = createPool({ connectionString: url.toString(), max: 2, applicationName: 'readiness-test' });
    const deps = await composeRedirector(
      {
        DATABASE_URL: url.toString(),
        KAFKA_BROKERS: infra.brokers,
        VISITOR_HASH_SECRET: 'test-visitor-secret-0123456789',
        CLICK_PATH: 'event-loop',
        REDIRECT_CACHE_SIZE: 1000,
        ROBOTS_ALLOW_REDIRECTS: false,
      },
      { pool, kafka: infra.log, names: infra.names, logger: silentLogger, metrics: createMetricsRegistry() },
    );
    const module = createRedirector(deps);
    await module.start?.();
    const app = await serve([module]);
    return {
      app,
      async close() {
        await app.close();
        await module.stop?.();
        await pool.end();
      },
    };
  }

  it('with a warm cache stays ready while Postgres is away, and keeps redirecting; a cold one is not ready', async () => {
    // Given two redirectors on the same Postgres, one having answered the link
    const warm = await redirector();
    const cold = await redirector();
    try {
      expect((await warm.app.inject({ url: `/${slug}` })).statusCode).toBe(302);
      expect((await readyz(warm.app)).status).toBe(200);
      expect((await readyz(cold.app)).status).toBe(200);
      // When Postgres goes away (and the last answers have aged out of the readiness cache)
      await proxy.cut();
      await new Promise((r) => setTimeout(r, 1100));
      // Then the warm one is ready, Postgres reported down but not required, and it still redirects
      const ready = await readyz(warm.app);
      expect(ready.status).toBe(200);
      expect(ready.body.dependencies).toEqual([
        { module: 'redirector', name: 'postgres', state: 'down', required: false, error: expect.any(String) },
      ]);
      const res = await warm.app.inject({ url: `/${slug}` });
      expect([res.statusCode, res.headers.location]).toEqual([302, 'https://example.com/ready']);
      // And the cold one, which can answer nothing, is not
      const notReady = await readyz(cold.app);
      expect(notReady.status).toBe(503);
      expect(notReady.body.dependencies[0]).toMatchObject({ name: 'postgres', state: 'down', required: true });
    } finally {
      await proxy.restore();
      await warm.close();
      await cold.close();
    }
  }, 30_000);
});
