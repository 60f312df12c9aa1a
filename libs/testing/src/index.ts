export { startTestInfra, dockerAvailable, type TestInfra, type InfraMode } from './infra';
export type { InfraEnv } from './infra-env';
export {
  infraEnv,
  createScratchPostgres,
  createScratchClickHouse,
  uniqueSuffix,
  eventually,
  type ScratchDatabase,
} from './scratch';
export { startProcess, freePort, type RunningProcess } from './processes';
export {
  startWebhookReceiver,
  readReceived,
  clearReceived,
  type ReceivedDelivery,
  type ReceiverProcessOptions,
} from './webhook-receiver';
export { startDnsTestServer, type DnsTestServer, type DnsTestMode } from './dns-test-server';
