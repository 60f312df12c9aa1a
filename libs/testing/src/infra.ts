import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { LOCAL_REDIS_URL, type InfraEnv } from './infra-env';

export type InfraMode = 'external' | 'containers' | 'local';

export interface TestInfra {
  mode: InfraMode;
  env: InfraEnv;
  stop(): Promise<void>;
}

const IMAGES = {
  kafka: 'confluentinc/cp-kafka:7.9.0',
  postgres: 'postgres:17-alpine',
  clickhouse: 'clickhouse/clickhouse-server:25.8',
  redis: 'redis:7-alpine',
};

/** True when a container engine answers within the timeout. */
export async function dockerAvailable(timeoutMs = 5000): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const probe = getContainerRuntimeClient().then(
      () => true,
      () => false,
    );
    const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    return await Promise.race([probe, timeout]);
  } catch {
    return false;
  }
}

async function startContainers(): Promise<TestInfra> {
  const [{ KafkaContainer }, { PostgreSqlContainer }, { ClickHouseContainer }, { GenericContainer, Wait }] =
    await Promise.all([
      import('@testcontainers/kafka'),
      import('@testcontainers/postgresql'),
      import('@testcontainers/clickhouse'),
      import('testcontainers'),
    ]);
  const [kafka, postgres, clickhouse, redis] = await Promise.all([
    new KafkaContainer(IMAGES.kafka).withKraft().start(),
    new PostgreSqlContainer(IMAGES.postgres).withDatabase('shortlink').start(),
    new ClickHouseContainer(IMAGES.clickhouse).start(),
    new GenericContainer(IMAGES.redis)
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start(),
  ]);
  return {
    mode: 'containers',
    env: {
      KAFKA_BROKERS: `${kafka.getHost()}:${kafka.getMappedPort(9093)}`,
      DATABASE_URL: postgres.getConnectionUri(),
      CLICKHOUSE_URL: clickhouse.getHttpUrl(),
      CLICKHOUSE_USER: clickhouse.getUsername(),
      CLICKHOUSE_PASSWORD: clickhouse.getPassword(),
      REDIS_URL: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    },
    async stop() {
      await Promise.all([kafka.stop(), postgres.stop(), clickhouse.stop(), redis.stop()]);
    },
  };
}

function startLocal(repoRoot: string): TestInfra {
  const result = spawnSync('bash', [join(repoRoot, 'deploy/local/infra.sh'), 'up'], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`deploy/local/infra.sh up failed with exit code ${result.status}`);
  return {
    mode: 'local',
    env: {
      KAFKA_BROKERS: '127.0.0.1:9092',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/shortlink',
      CLICKHOUSE_URL: 'http://127.0.0.1:8123',
      CLICKHOUSE_USER: 'default',
      CLICKHOUSE_PASSWORD: '',
      REDIS_URL: LOCAL_REDIS_URL,
    },
    // Left running on purpose: the next run starts in a second. `npm run infra:down` stops it.
    async stop() {},
  };
}

/**
 * Decides where integration tests run:
 * 1. `KAFKA_BROKERS`, `DATABASE_URL` and `CLICKHOUSE_URL` all set: those servers.
 * 2. `TEST_INFRA=containers|local` forces a mode.
 * 3. Otherwise containers when a Docker engine answers, local processes when not.
 */
export async function startTestInfra(
  env: Readonly<Record<string, string | undefined>>,
  repoRoot: string,
): Promise<TestInfra> {
  if (env.KAFKA_BROKERS && env.DATABASE_URL && env.CLICKHOUSE_URL) {
    return {
      mode: 'external',
      env: {
        KAFKA_BROKERS: env.KAFKA_BROKERS,
        DATABASE_URL: env.DATABASE_URL,
        CLICKHOUSE_URL: env.CLICKHOUSE_URL,
        CLICKHOUSE_USER: env.CLICKHOUSE_USER ?? 'default',
        CLICKHOUSE_PASSWORD: env.CLICKHOUSE_PASSWORD ?? '',
        REDIS_URL: env.REDIS_URL ?? LOCAL_REDIS_URL,
      },
      async stop() {},
    };
  }
  const requested = env.TEST_INFRA ?? 'auto';
  if (!['auto', 'containers', 'local'].includes(requested)) {
    throw new Error(`TEST_INFRA must be auto, containers or local, not ${requested}`);
  }
  if (requested === 'containers' || (requested === 'auto' && (await dockerAvailable()))) {
    return startContainers();
  }
  return startLocal(repoRoot);
}
