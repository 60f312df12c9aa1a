import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { startChdbHttpServer } from '@shortlink/chdb-server';
import {
  DEFAULT_PARTITIONS,
  ensureTopics,
  topicSpecs,
  type EventLogClient,
  type KafkaLogger,
  type KafkaNames,
} from '@shortlink/kafka';
import { embeddedLogClient } from './event-log/embedded-client';
import { EventLog } from './event-log/event-log';

/** What a running embedded installation tells other processes (the `apikey` command) about itself. */
export interface EmbeddedState {
  pid: number;
  databaseUrl: string;
  clickhouseUrl: string;
}

export interface EmbeddedStack extends EmbeddedState {
  dataDir: string;
  log: EventLogClient;
  close(): Promise<void>;
}

const STATE_FILE = 'embedded.json';
/** pg pools, the redirector's listener and the CLI share one PGlite through this many connections. */
const MAX_PG_CONNECTIONS = 64;

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(`${dataDir} is in use by another shortlink process (pid ${pid}); stop it first, or set DATA_DIR elsewhere`);
    this.name = 'DataDirInUseError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The state of the process that owns `dataDir`, if one is running. */
export async function runningEmbedded(dataDir: string): Promise<EmbeddedState | null> {
  try {
    const state = JSON.parse(await readFile(join(dataDir, STATE_FILE), 'utf8')) as EmbeddedState;
    return isAlive(state.pid) && state.pid !== process.pid ? state : null;
  } catch {
    return null;
  }
}

/**
 * Claims `dataDir` for this process: one owner at a time, since PGlite and the
 * log are single-process. A state file left by a killed owner is taken over.
 */
async function claimDataDir(dataDir: string, state: () => EmbeddedState): Promise<() => Promise<void>> {
  const owner = await runningEmbedded(dataDir);
  if (owner) throw new DataDirInUseError(dataDir, owner.pid);
  // Written first with this pid alone, so a second starter sees an owner while we boot.
  const path = join(dataDir, STATE_FILE);
  await writeFile(path, JSON.stringify({ pid: process.pid, databaseUrl: '', clickhouseUrl: '' }));
  return async () => {
    await writeFile(path, JSON.stringify(state()));
  };
}

export interface EmbeddedOptions {
  dataDir: string;
  names: KafkaNames;
  logger?: KafkaLogger;
  /** Where ClickHouse engine errors go (a failed query), for the log. */
  onClickHouseError?: (error: Error) => void;
}

/**
 * Postgres, ClickHouse and the event log for one process, with all state under
 * `dataDir`: PGlite (the Postgres engine in WebAssembly) served on a loopback
 * socket so the services' `pg` pools use it unchanged; the chdb engine behind
 * the project's ClickHouse HTTP endpoint; and the durable embedded log.
 */
export async function startEmbeddedStack(options: EmbeddedOptions): Promise<EmbeddedStack> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  let state: EmbeddedState = { pid: process.pid, databaseUrl: '', clickhouseUrl: '' };
  const publish = await claimDataDir(dataDir, () => state);
  const closers: (() => Promise<void>)[] = [async () => rm(join(dataDir, STATE_FILE), { force: true })];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer().catch(() => undefined);
  };
  try {
    const pg = await startPostgres(join(dataDir, 'postgres'));
    closers.push(pg.close);
    const ch = await startChdbHttpServer({
      dataPath: join(dataDir, 'clickhouse'),
      host: '127.0.0.1',
      port: 0,
      onError: options.onClickHouseError,
    });
    closers.push(() => ch.close());
    const eventLog = await EventLog.open(join(dataDir, 'log'));
    closers.push(() => eventLog.close());
    const log = embeddedLogClient(eventLog, options.logger);
    await ensureTopics(log, topicSpecs(options.names, DEFAULT_PARTITIONS));

    state = {
      pid: process.pid,
      databaseUrl: pg.url,
      clickhouseUrl: `http://127.0.0.1:${(ch.server.address() as AddressInfo).port}`,
    };
    await publish();
    return { ...state, dataDir, log, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** PGlite in `dir`, behind a Postgres wire-protocol socket on 127.0.0.1. */
export async function startPostgres(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const db = await PGlite.create(dir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: MAX_PG_CONNECTIONS });
  await server.start();
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
