import { infraEnv } from '@shortlink/testing';
import { describeApiContract, type ContractTarget } from './contract/api-contract';
import { describeConcurrentContract } from './contract/concurrent-contract';
import { createKeyWithCli } from './support/cli';
import { openTestInfra, type TestInfra } from './support/link-system';
import { buildOnce, startProcess, type RunningProcess } from './support/processes';

/** `npm start` with KAFKA_BROKERS, DATABASE_URL and CLICKHOUSE_URL set: the real Kafka, Postgres and ClickHouse engine. */
let infra: TestInfra;
let app: RunningProcess;

beforeAll(async () => {
  buildOnce();
  infra = await openTestInfra();
  const env = infraEnv(process.env);
  app = await startProcess('deploy/standalone/dist/main.js', {
    KAFKA_BROKERS: infra.brokers.join(','),
    KAFKA_TOPIC_PREFIX: infra.topicPrefix,
    DATABASE_URL: infra.db.url,
    CLICKHOUSE_URL: env.CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: infra.clickhouseDatabase,
    PREVIEW_ALLOW_PRIVATE_NETWORKS: 'true',
  });
}, 90_000);

afterAll(async () => {
  expect(await app?.stop()).toBe(0);
  await infra?.close();
});

const target = (): ContractTarget => ({
  url: app.url,
  issueKey: (plan) => createKeyWithCli({ DATABASE_URL: infra.db.url }, plan),
});

describeApiContract('Kafka, Postgres, ClickHouse', target);
describeConcurrentContract('Kafka, Postgres, ClickHouse', target);
