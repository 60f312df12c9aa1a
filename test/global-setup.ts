import { join } from 'node:path';
import { startTestInfra, type TestInfra } from '@shortlink/testing';

declare global {
  var __SHORTLINK_TEST_INFRA__: TestInfra | undefined;
}

/** Brings up (or finds) Kafka, Postgres and ClickHouse once for the integration project. */
export default async function globalSetup(): Promise<void> {
  const infra = await startTestInfra(process.env, join(__dirname, '..'));
  // Workers are forked after this, so they inherit the settings.
  Object.assign(process.env, infra.env);
  globalThis.__SHORTLINK_TEST_INFRA__ = infra;
  console.log(`\n[test] integration infrastructure: ${infra.mode}`);
}
