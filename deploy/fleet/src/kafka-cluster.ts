import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKafka, waitForKafka } from '@shortlink/event-log';
import type { ProcessSpec } from './supervisor';

export interface KafkaNode {
  id: number;
  port: number;
  controllerPort: number;
}

export interface KafkaClusterLayout {
  nodes: KafkaNode[];
  /** Where the broker jars are (fetched from Maven Central by deploy/local/infra.sh jars). */
  libsDir: string;
  dataDir: string;
  log4jConfig: string;
  template: string;
}

export const brokerName = (node: KafkaNode) => `kafka-${node.id}`;
export const bootstrapOf = (nodes: readonly KafkaNode[]) => nodes.map((n) => `127.0.0.1:${n.port}`);

/** Fetches the broker jars from Maven Central once; shared with the one-broker infrastructure (infra.sh). */
export function fetchKafkaJars(root: string): void {
  execFileSync('bash', [join(root, 'deploy', 'local', 'infra.sh'), 'jars'], { stdio: 'inherit' });
}

/**
 * Writes each node's properties and formats its storage once, with one
 * cluster id shared by the three, as `kafka-storage format` would on three
 * machines.
 */
export function prepareKafkaCluster(layout: KafkaClusterLayout): void {
  const voters = layout.nodes.map((n) => `${n.id}@127.0.0.1:${n.controllerPort}`).join(',');
  const idFile = join(layout.dataDir, 'cluster-id');
  mkdirSync(layout.dataDir, { recursive: true });
  // Kafka's own generator: a home-made random id starts with '-' one time in
  // 64, and the storage tool then reads it as an option and refuses to format.
  if (!existsSync(idFile)) writeFileSync(idFile, storageTool(layout, ['random-uuid']));
  const clusterId = readFileSync(idFile, 'utf8').trim();
  const template = readFileSync(layout.template, 'utf8');
  for (const node of layout.nodes) {
    const dir = join(layout.dataDir, brokerName(node));
    const properties = propertiesFile(layout, node);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      properties,
      template
        .replaceAll('@NODE_ID@', String(node.id))
        .replaceAll('@PORT@', String(node.port))
        .replaceAll('@CONTROLLER_PORT@', String(node.controllerPort))
        .replaceAll('@VOTERS@', voters)
        .replaceAll('@DATA_DIR@', join(dir, 'data')),
    );
    if (!existsSync(join(dir, 'data', 'meta.properties'))) {
      storageTool(layout, ['format', '-t', clusterId, '-c', properties]);
    }
  }
}

/** Runs `kafka-storage`; its complaint, if any, is in the thrown error's message. */
const storageTool = (layout: KafkaClusterLayout, args: string[]): string =>
  execFileSync('java', ['-Xmx256m', '-cp', `${layout.libsDir}/*`, 'kafka.tools.StorageTool', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

const propertiesFile = (layout: KafkaClusterLayout, node: KafkaNode) =>
  join(layout.dataDir, brokerName(node), 'server.properties');

/** How the supervisor starts one node; ready once it serves producers and groups through its own listener. */
export function kafkaNodeProcess(layout: KafkaClusterLayout, node: KafkaNode): ProcessSpec {
  return {
    name: brokerName(node),
    command: 'java',
    args: [
      '-Xms256m',
      '-Xmx512m',
      '-XX:+UseG1GC',
      '-XX:MaxGCPauseMillis=20',
      '-Djava.awt.headless=true',
      `-Dlog4j2.configurationFile=${layout.log4jConfig}`,
      '-cp',
      `${layout.libsDir}/*`,
      'kafka.Kafka',
      propertiesFile(layout, node),
    ],
    ready: () => brokerAnswers(node),
    readyTimeoutMs: 120_000,
  };
}

async function brokerAnswers(node: KafkaNode): Promise<boolean> {
  const kafka = createKafka({ brokers: [`127.0.0.1:${node.port}`], clientId: 'fleet-readiness' });
  return waitForKafka(kafka, 3000).then(
    () => true,
    () => false,
  );
}

/**
 * Partitions whose in-sync replicas are fewer than their replicas: zero once
 * a node that was away has caught up, which is when the next fault may come.
 */
export async function underReplicatedPartitions(nodes: readonly KafkaNode[]): Promise<number> {
  const admin = createKafka({ brokers: bootstrapOf(nodes), clientId: 'fleet-isr' }).admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata();
    return topics.flatMap((t) => t.partitions).filter((p) => p.isr.length < p.replicas.length).length;
  } finally {
    await admin.disconnect();
  }
}
