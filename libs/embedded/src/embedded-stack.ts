import { randomBytes } from 'node:crypto';
import { access, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { startChdbHttpServer } from '@shortlink/chdb-server';
import {
  DEFAULT_PARTITIONS,
  EventLog,
  embeddedLogClient,
  ensureTopics,
  topicSpecs,
  type EventLogClient,
  type KafkaLogger,
  type KafkaNames,
} from '@shortlink/event-log';
import { startPostgresOnThread } from './postgres/postgres-on-thread';
import { newPostgresPassword, startPostgres } from './postgres/start-postgres';
import { privateDataDir } from './private-data-dir';
import { isAlive, listRunning, registerRunning, type RunningServer } from './running-servers';

/** What a running embedded installation tells other processes (the `apikey` command) about itself. */
export interface EmbeddedState {
  pid: number;
  databaseUrl: string;
  clickhouseUrl: string;
  /** The ClickHouse endpoint's password, made for this run (any user name). */
  clickhousePassword: string;
}

export interface EmbeddedStack extends EmbeddedState {
  dataDir: string;
  log: EventLogClient;
  close: () => Promise<void>;
}

const STATE_FILE = 'embedded.json';
export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `${dataDir} is in use by another shortlink process (pid ${pid}); stop it first, or set DATA_DIR elsewhere ` +
        `(if pid ${pid} is not shortlink, delete ${join(dataDir, STATE_FILE)})`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** A command was pointed at a DATA_DIR where no server runs and no store was ever made. */
export class NoEmbeddedStoreError extends Error {
  constructor(dataDir: string, running: readonly RunningServer[]) {
    const elsewhere = running.map((s) => `  DATA_DIR=${s.dataDir}  (pid ${s.pid})`).join('\n');
    super(
      `No shortlink server is running with DATA_DIR=${dataDir}, and there is no shortlink data there. ` +
        (running.length > 0
          ? `Running now:\n${elsewhere}\nRun the command again with that DATA_DIR.`
          : 'Start the server first (npm start), or set DATA_DIR to where its data is.'),
    );
    this.name = 'NoEmbeddedStoreError';
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
 * log are single-process. The state file is created exclusively, so two
 * starters cannot both win; one left by a killed owner is taken over.
 * Returns a function that publishes the final state once the stack is up.
 */
async function claimDataDir(dataDir: string): Promise<(state: EmbeddedState) => Promise<void>> {
  const path = join(dataDir, STATE_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      const claim: EmbeddedState = { pid: process.pid, databaseUrl: '', clickhouseUrl: '', clickhousePassword: '' };
      // Its owner's alone: it will hold the ClickHouse endpoint's password.
      await writeFile(path, JSON.stringify(claim), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw e;
      const owner = await runningEmbedded(dataDir);
      if (owner) throw new DataDirInUseError(dataDir, owner.pid);
      await rm(path, { force: true }); // left by a process that has exited
    }
  }
  return (state) => writeFile(path, JSON.stringify(state));
}

const releaseDataDir = (dataDir: string) => rm(join(dataDir, STATE_FILE), { force: true });

export interface EmbeddedOptions {
  dataDir: string;
  names: KafkaNames;
  logger?: KafkaLogger;
  /** Where ClickHouse engine errors go (a failed query), for the log. */
  onClickHouseError?: (error: Error) => void;
  /** PGlite's thread died: Postgres is gone until the process restarts. */
  onEngineLost?: (error: Error) => void;
}

/**
 * Postgres, ClickHouse and the event log for one process, with all state under
 * `dataDir`: PGlite (the Postgres engine in WebAssembly) served on a loopback
 * socket so the services' `pg` pools use it unchanged; the chdb engine behind
 * the project's ClickHouse HTTP endpoint; and the durable embedded log.
 */
export async function startEmbeddedStack(options: EmbeddedOptions): Promise<EmbeddedStack> {
  const dataDir = resolve(options.dataDir);
  await privateDataDir(dataDir);
  const publish = await claimDataDir(dataDir);
  const closers: (() => Promise<void>)[] = [() => releaseDataDir(dataDir)];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer().catch(() => undefined);
  };
  try {
    // PGlite's WebAssembly runs every statement synchronously: on a thread of
    // its own, so that statements do not stall the requests on this one.
    const pg = await startPostgresOnThread(join(dataDir, 'postgres'), { onExit: options.onEngineLost });
    closers.push(() => pg.close());
    // Made for this run: on its loopback port the endpoint runs any SQL, file() included, for whoever has it.
    const clickhousePassword = randomBytes(24).toString('base64url');
    const ch = await startChdbHttpServer({
      dataPath: join(dataDir, 'clickhouse'),
      host: '127.0.0.1',
      port: 0,
      password: clickhousePassword,
      onError: options.onClickHouseError,
    });
    closers.push(() => ch.close());
    const eventLog = await EventLog.open(join(dataDir, 'log'));
    closers.push(() => eventLog.close());
    const log = embeddedLogClient(eventLog, options.logger);
    await ensureTopics(log, topicSpecs(options.names, DEFAULT_PARTITIONS));

    const state: EmbeddedState = {
      pid: process.pid,
      databaseUrl: pg.url,
      clickhouseUrl: `http://127.0.0.1:${(ch.server.address() as AddressInfo).port}`,
      clickhousePassword,
    };
    await publish(state);
    closers.push(await registerRunning({ pid: process.pid, dataDir }));
    return { ...state, dataDir, log, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * Postgres for a short command (`npm run apikey`): the running server's own,
 * reached through its socket, so the server need not stop; or, when none runs,
 * PGlite opened for the command, with the directory claimed meanwhile. A
 * DATA_DIR with neither is refused, naming the servers that do run: a key
 * made in a new, empty store would be refused by every server.
 */
export async function embeddedPostgresFor(dataDir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const dir = resolve(dataDir);
  const owner = await runningEmbedded(dir);
  if (owner?.databaseUrl) return { url: owner.databaseUrl, close: async () => undefined };
  if (owner) throw new DataDirInUseError(dir, owner.pid);
  const hasStore = await access(join(dir, 'postgres', 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (!hasStore) throw new NoEmbeddedStoreError(dir, await listRunning());
  await privateDataDir(dir);
  await claimDataDir(dir);
  try {
    const pg = await startPostgres(join(dir, 'postgres'), newPostgresPassword());
    return {
      url: pg.url,
      async close() {
        await pg.close();
        await releaseDataDir(dir);
      },
    };
  } catch (e) {
    await releaseDataDir(dir);
    throw e;
  }
}
