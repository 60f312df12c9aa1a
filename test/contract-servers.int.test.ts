import { describeApiContract, type ContractTarget } from './contract/api-contract';
import { describeConcurrentContract } from './contract/concurrent-contract';
import { createKeyWithCli } from './support/cli';
import { openTestInfra, startServersProcess, type TestInfra } from './support/link-system';
import { type RunningProcess } from './support/processes';

/** `npm start` with KAFKA_BROKERS, DATABASE_URL and CLICKHOUSE_URL set: the real Kafka, Postgres and ClickHouse engine. */
let infra: TestInfra;
let app: RunningProcess;

beforeAll(async () => {
  infra = await openTestInfra();
  app = await startServersProcess(infra, { PREVIEW_ALLOW_PRIVATE_NETWORKS: 'true' });
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
