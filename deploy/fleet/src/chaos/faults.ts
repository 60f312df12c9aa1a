import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync, readFileSync } from 'node:fs';
import { underReplicatedPartitions } from '../kafka-cluster';
import type { Fleet } from '../fleet';
import { WEBHOOK_DISPATCHER_KILL } from './webhook-fault';
import type { WebhookEvidence } from './webhook-verdict';

export interface FaultContext {
  fleet: Fleet;
  log: (message: string) => void;
}

/** What a fault did, for the report: figures it read on the way (for example clicks a killed process held). */
export type FaultNotes = Record<string, number | string>;

/** What a fault found: its notes, and for a fault that drives traffic of its own, what that traffic saw. */
export interface FaultOutcome {
  notes?: FaultNotes;
  /** The webhook phase's accounts, endpoints and deliveries (webhook-verdict.ts judges them). */
  webhooks?: WebhookEvidence;
}

export interface Fault {
  name: string;
  description: string;
  /** Injects the fault and undoes it (restart, resume); resolves once the fleet is whole again. */
  run(context: FaultContext): Promise<FaultOutcome>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForReplicas({ fleet, log }: FaultContext): Promise<FaultNotes> {
  const started = Date.now();
  for (;;) {
    const behind = await underReplicatedPartitions(fleet.layout.kafka.nodes).catch(() => -1);
    if (behind === 0) return { replicasInSyncAfterMs: Date.now() - started };
    if (Date.now() - started > 180_000) throw new Error(`partitions still under-replicated (${behind}) after 180 s`);
    if ((Date.now() - started) % 10_000 < 500) log(`waiting for replicas to catch up (${behind} behind)`);
    await sleep(500);
  }
}

/** The redirector's own count of clicks it accepted and the event log has not acknowledged. */
async function clicksHeldBy(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return (
    value('shortlink_clicks_queued_total') -
    value('shortlink_clicks_sent_total') -
    value('shortlink_clicks_dropped_total') -
    value('shortlink_clicks_rejected_total')
  );
}

function postgresVersion(): string {
  const versions = readdirSync('/etc/postgresql').sort((a, b) => Number(a) - Number(b));
  const version = versions[versions.length - 1];
  if (!version) throw new Error('no PostgreSQL cluster under /etc/postgresql');
  return version;
}

/**
 * Freezes the cluster as a hung host or a partition would leave it: the
 * postmaster first (it forks no backend after), then each of its children.
 */
async function freezePostgres(): Promise<number[]> {
  const pidFile = `/var/run/postgresql/${postgresVersion()}-main.pid`;
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(postmaster) || postmaster <= 1) throw new Error(`no postmaster pid in ${pidFile}`);
  process.kill(postmaster, 'SIGSTOP');
  const { stdout } = await promisify(execFile)('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }));
  const children = stdout.split('\n').filter(Boolean).map(Number);
  for (const pid of children) process.kill(pid, 'SIGSTOP');
  return [postmaster, ...children];
}

function thaw(pids: readonly number[]): void {
  for (const pid of [...pids].reverse()) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // A backend that exited while frozen (its client gone) has nothing to resume.
    }
  }
}

/**
 * Not execFileSync: the traffic runs in this process, and a blocked event
 * loop (the stop and the start take seconds) sent the redirects due meanwhile
 * in one burst afterwards, thousands of them not sent for want of connections.
 */
const pgctl = async (action: 'start' | 'stop'): Promise<void> => {
  await promisify(execFile)('pg_ctlcluster', [
    '--skip-systemctl-redirect',
    postgresVersion(),
    'main',
    action,
    ...(action === 'stop' ? ['-m', 'fast'] : []),
  ]);
};

export const FAULTS: Fault[] = [
  {
    name: 'baseline',
    description: 'no fault for 30 s: the same checks on an undisturbed fleet, for comparison',
    async run() {
      await sleep(30_000);
      return {};
    },
  },
  {
    name: 'kafka-kill',
    description: 'kill -9 of a Kafka node; restarted after 20 s',
    async run(context) {
      await context.fleet.supervisor.kill('kafka-2');
      await sleep(20_000);
      await context.fleet.start('kafka-2');
      return { notes: await waitForReplicas(context) };
    },
  },
  {
    name: 'kafka-pause',
    description: 'SIGSTOP of a Kafka node for 20 s (frozen, sockets open), then SIGCONT',
    async run(context) {
      context.fleet.supervisor.pause('kafka-3');
      await sleep(20_000);
      context.fleet.supervisor.resume('kafka-3');
      return { notes: await waitForReplicas(context) };
    },
  },
  {
    name: 'click-projector-kill',
    description: 'kill -9 of a click projector; restarted after 10 s',
    async run({ fleet }) {
      await fleet.supervisor.kill('click-projector-1');
      await sleep(10_000);
      await fleet.start('click-projector-1');
      return {};
    },
  },
  {
    name: 'redirector-rolling-restart',
    description: 'each redirector in turn: SIGTERM, wait for its exit, start it again',
    async run({ fleet }) {
      const notes: FaultNotes = {};
      for (const name of ['redirector-1', 'redirector-2']) {
        const stopping = Date.now();
        await fleet.supervisor.stop(name, 'SIGTERM');
        notes[`${name}StoppedInMs`] = Date.now() - stopping;
        await fleet.start(name);
        await sleep(3000); // two passing health checks bring it back into rotation
      }
      return { notes };
    },
  },
  {
    name: 'redirector-kill',
    description: 'kill -9 of a redirector; restarted after 5 s',
    async run({ fleet }) {
      const port = fleet.layout.instances.find((i) => i.name === 'redirector-1')!.port;
      const read = performance.now();
      const held = await clicksHeldBy(port);
      await fleet.supervisor.kill('redirector-1');
      // Clicks it took between the reading and the kill are unacknowledged too: the report allows for them.
      const readToKillMs = Math.ceil(performance.now() - read);
      await sleep(5000);
      await fleet.start('redirector-1');
      return { notes: { clicksHeldAtKill: held, readToKillMs } };
    },
  },
  {
    name: 'postgres-restart',
    description: 'Postgres stopped (fast shutdown) and started again 10 s later',
    async run() {
      await pgctl('stop');
      await sleep(10_000);
      await pgctl('start');
      return {};
    },
  },
  {
    name: 'postgres-pause',
    description:
      "every Postgres process frozen (SIGSTOP) for 40 s, then SIGCONT: a stall, connections open and nothing answered, past the consumers' 30 s session timeout",
    async run() {
      const frozen = await freezePostgres();
      try {
        await sleep(40_000);
      } finally {
        thaw(frozen);
      }
      return { notes: { postgresProcessesFrozen: frozen.length } };
    },
  },
  {
    name: 'clickhouse-pause',
    description:
      "the ClickHouse endpoint frozen (SIGSTOP) for 40 s, then SIGCONT: inserts under way outlive the client's 30 s timeout, their outcome unknown",
    async run({ fleet }) {
      fleet.supervisor.pause('clickhouse');
      await sleep(40_000);
      fleet.supervisor.resume('clickhouse');
      return {};
    },
  },
  {
    name: 'clickhouse-stop',
    description: 'the ClickHouse endpoint stopped for 60 s',
    async run({ fleet }) {
      await fleet.supervisor.stop('clickhouse');
      await sleep(60_000);
      await fleet.start('clickhouse');
      return {};
    },
  },
  WEBHOOK_DISPATCHER_KILL,
];
