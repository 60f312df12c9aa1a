import { join } from 'node:path';
import { bootstrapOf, kafkaNodeProcess, type KafkaClusterLayout, type KafkaNode } from './kafka-cluster';
import { entryPointProcess, type Upstream } from './entry-point';
import type { ProcessSpec } from './supervisor';

/** Where the fleet listens and keeps its state; all on loopback. */
export interface FleetOptions {
  root: string;
  stateDir: string;
  entryPort: number;
  databaseUrl: string;
  /** The rate-limit store every write API and analytics process shares: the machine's Redis. */
  redisUrl: string;
  visitorHashSecret: string;
  /** Added to every port but the entry point's, so a second fleet (the tests') can run beside one in use. */
  portOffset?: number;
  /**
   * Webhooks to a receiver on this machine: plain http to loopback allowed, and failed deliveries retried on
   * this schedule (seconds, WEBHOOKS_RETRY_SCHEDULE) instead of over hours. The chaos run's, never an installation's.
   */
  localWebhooks?: { retrySchedule: string };
}

export interface ServiceInstance extends Upstream {
  service:
    'write-api' | 'redirector' | 'projector' | 'analytics' | 'preview-worker' | 'webhook-dispatcher' | 'api-docs';
  env?: Record<string, string>;
}

export interface FleetLayout {
  options: FleetOptions;
  kafka: KafkaClusterLayout;
  brokers: string[];
  clickhouse: { port: number; url: string; dataDir: string };
  entryUrl: string;
  instances: ServiceInstance[];
  /** Every process in the order they start. */
  processes: ProcessSpec[];
  byName: ReadonlyMap<string, ProcessSpec>;
}

const kafkaNodes = (offset: number): KafkaNode[] =>
  [1, 2, 3].map((id) => ({ id, port: 29090 + offset + id, controllerPort: 29190 + offset + id }));
const CLICKHOUSE_PORT = 28123;

/**
 * The fleet: three Kafka nodes, the ClickHouse endpoint, and the services as
 * separate processes (two write APIs, two redirectors, two click projectors
 * sharing the clicks partitions, one link projector, one preview worker, one
 * webhook dispatcher, one analytics), behind one HAProxy entry point. Postgres is the machine's own.
 */
/**
 * The fleet puts on one machine what production spreads over several, so the ClickHouse endpoint and the consumers
 * (projectors, preview worker, webhook dispatcher) run at a lower priority: when cores are short the entry point, the redirectors and the
 * write APIs are served first, as separate machines or reserved CPU would have them. Idle cores still go to the batch
 * work; only its freshness waits (docs/decisions/0041-batch-work-at-lower-cpu-priority.md).
 */
const BATCH_NICE = 10;
const BATCH_SERVICES = new Set<ServiceInstance['service']>(['projector', 'preview-worker', 'webhook-dispatcher']);

export const INSTANCES: ServiceInstance[] = [
  // The first to start creates the topics (replicated by the cluster's default, 3) and migrates Postgres.
  { name: 'write-api-1', service: 'write-api', port: 3101 },
  { name: 'write-api-2', service: 'write-api', port: 3102 },
  { name: 'link-projector', service: 'projector', port: 3401, env: { PROJECTIONS: 'links' } },
  { name: 'click-projector-1', service: 'projector', port: 3402, env: { PROJECTIONS: 'clicks' } },
  { name: 'click-projector-2', service: 'projector', port: 3403, env: { PROJECTIONS: 'clicks' } },
  { name: 'redirector-1', service: 'redirector', port: 3201 },
  { name: 'redirector-2', service: 'redirector', port: 3202 },
  { name: 'analytics', service: 'analytics', port: 3301 },
  { name: 'preview-worker', service: 'preview-worker', port: 3501 },
  { name: 'webhook-dispatcher', service: 'webhook-dispatcher', port: 3701 },
  // The API document and its reference page: no service knows the others' routes, so a process of its own.
  { name: 'api-docs', service: 'api-docs', port: 3601 },
];

/** Each kind of instance's entry point. */
const entryOf = (root: string, service: ServiceInstance['service']): string =>
  join(root, 'services', service, 'dist', 'main.js');

async function healthy(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) });
  await res.arrayBuffer();
  return res.status === 200;
}

/** The fleet's three Kafka nodes, on ports shifted by `offset`, with their state under `stateDir`. */
export function kafkaClusterLayout(root: string, stateDir: string, offset: number): KafkaClusterLayout {
  return {
    nodes: kafkaNodes(offset),
    libsDir: join(root, '.infra', 'kafka', 'libs'),
    dataDir: join(stateDir, 'kafka'),
    log4jConfig: join(root, 'deploy', 'kafka', 'log4j2.yaml'),
    template: join(root, 'deploy', 'fleet', 'kafka-broker.properties'),
  };
}

export function fleetLayout(options: FleetOptions): FleetLayout {
  const { root, stateDir } = options;
  const offset = options.portOffset ?? 0;
  const instances = INSTANCES.map((i) => ({ ...i, port: i.port + offset }));
  const kafka = kafkaClusterLayout(root, stateDir, offset);
  const brokers = bootstrapOf(kafka.nodes);
  const clickhouse = {
    port: CLICKHOUSE_PORT + offset,
    url: `http://127.0.0.1:${CLICKHOUSE_PORT + offset}`,
    dataDir: join(stateDir, 'clickhouse'),
  };
  const entryUrl = `http://127.0.0.1:${options.entryPort}`;
  const shared: Record<string, string> = {
    KAFKA_BROKERS: brokers.join(','),
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    // The chaos traffic (50 creates/s, analytics polled at 20 Hz) is one Pro key's: above the
    // 3,000 a minute a real Pro key gets, so that the faults, not the limit, decide what is refused.
    RATE_LIMIT_PRO_PER_MINUTE: '100000',
    CLICKHOUSE_URL: clickhouse.url,
    PUBLIC_BASE_URL: entryUrl,
    VISITOR_HASH_SECRET: options.visitorHashSecret,
    HOST: '127.0.0.1',
    // Behind the entry point: the visitor's address comes from X-Forwarded-For.
    TRUST_PROXY: 'true',
    // Longer than the entry point needs to see a failing /healthz (three checks a second apart).
    SHUTDOWN_DRAIN_MS: '5000',
    // A dead member's partitions move to the other within seconds, not the default 30.
    KAFKA_SESSION_TIMEOUT_MS: '10000',
    // Each process's start, drain and stop (with its click counts) in its log: what a chaos run is read from afterwards.
    LOG_LEVEL: 'info',
    PREVIEW_ALLOW_PRIVATE_NETWORKS: 'false',
    WEBHOOKS_ALLOW_HTTP: 'false',
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'false',
    ...(options.localWebhooks && {
      WEBHOOKS_ALLOW_HTTP: 'true',
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOKS_RETRY_SCHEDULE: options.localWebhooks.retrySchedule,
    }),
  };
  const serviceProcess = (instance: ServiceInstance): ProcessSpec => ({
    name: instance.name,
    command: process.execPath,
    args: [entryOf(root, instance.service)],
    env: { ...shared, PORT: String(instance.port), ...instance.env },
    ready: () => healthy(instance.port),
    nice: BATCH_SERVICES.has(instance.service) ? BATCH_NICE : undefined,
  });
  const entry = entryPointProcess({
    port: options.entryPort,
    template: join(root, 'deploy', 'fleet', 'haproxy.cfg.template'),
    errorsDir: join(root, 'deploy', 'fleet', 'errors'),
    configFile: join(stateDir, 'haproxy.cfg'),
    redirectors: instances.filter((i) => i.service === 'redirector'),
    writeApis: instances.filter((i) => i.service === 'write-api'),
    analytics: instances.filter((i) => i.service === 'analytics'),
    apiDocs: instances.filter((i) => i.service === 'api-docs'),
  });
  const clickhouseProcess: ProcessSpec = {
    name: 'clickhouse',
    command: process.execPath,
    args: [
      join(root, 'libs', 'chdb-server', 'dist', 'cli.js'),
      '--path',
      clickhouse.dataDir,
      '--host',
      '127.0.0.1',
      '--port',
      String(clickhouse.port),
    ],
    ready: async () => (await fetch(`${clickhouse.url}/ping`, { signal: AbortSignal.timeout(1000) })).ok,
    nice: BATCH_NICE,
  };
  const processes = [
    ...kafka.nodes.map((node) => kafkaNodeProcess(kafka, node)),
    clickhouseProcess,
    ...instances.map(serviceProcess),
    entry,
  ];
  return {
    options,
    kafka,
    brokers,
    clickhouse,
    entryUrl,
    instances,
    processes,
    byName: new Map(processes.map((p) => [p.name, p])),
  };
}
