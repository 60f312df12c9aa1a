import { join } from 'node:path';
import pg from 'pg';
import { fetchKafkaJars, prepareKafkaCluster } from './kafka-cluster';
import type { FleetLayout } from './fleet-layout';
import { Supervisor } from './supervisor';

export interface Fleet {
  layout: FleetLayout;
  supervisor: Supervisor;
  /** Starts `name` again (after a stop or a kill) and waits until it is ready. */
  start(name: string): Promise<void>;
}

type Log = (message: string) => void;

export function openFleet(layout: FleetLayout): Fleet {
  const supervisor = new Supervisor(join(layout.options.stateDir, 'run'));
  return {
    layout,
    supervisor,
    async start(name) {
      const spec = layout.byName.get(name);
      if (!spec) throw new Error(`no process named ${name} in the fleet`);
      await supervisor.start(spec);
    },
  };
}

/** The database the fleet's services share, on the machine's Postgres. */
async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}

/** Starts whatever is not running, in order, each once the ones before it are ready. Idempotent. */
export async function fleetUp(fleet: Fleet, log: Log): Promise<void> {
  const { layout, supervisor } = fleet;
  const root = layout.options.root;
  fetchKafkaJars(root);
  prepareKafkaCluster(layout.kafka);
  await ensureDatabase(layout.options.databaseUrl);
  const kafkaNodes = layout.processes.filter((p) => p.name.startsWith('kafka-'));
  // A KRaft quorum needs a majority of its controllers to elect a leader: the three start together.
  log(`starting ${kafkaNodes.map((p) => p.name).join(', ')}`);
  await Promise.all(kafkaNodes.map((p) => supervisor.start(p)));
  for (const spec of layout.processes.filter((p) => !kafkaNodes.includes(p))) {
    log(`starting ${spec.name}`);
    await supervisor.start(spec);
  }
  log(`fleet ready: entry point ${layout.entryUrl}`);
}

/**
 * Stops everything: the entry point first, then the services together (each
 * drains and flushes its clicks to Kafka), then ClickHouse, the Kafka nodes last.
 */
export async function fleetDown(fleet: Fleet, log: Log): Promise<void> {
  const { processes } = fleet.layout;
  const tier = (name: string) => (name === 'entry' ? 0 : name.startsWith('kafka-') ? 3 : name === 'clickhouse' ? 2 : 1);
  for (const level of [0, 1, 2, 3]) {
    await Promise.all(
      processes
        .filter((spec) => tier(spec.name) === level && fleet.supervisor.pid(spec.name) !== null)
        .map(async (spec) => {
          log(`stopping ${spec.name}`);
          fleet.supervisor.resume(spec.name); // a paused process cannot handle SIGTERM
          await fleet.supervisor.stop(spec.name);
        }),
    );
  }
}

export function fleetStatus(fleet: Fleet): { name: string; pid: number | null }[] {
  return fleet.layout.processes.map((p) => ({ name: p.name, pid: fleet.supervisor.pid(p.name) }));
}
