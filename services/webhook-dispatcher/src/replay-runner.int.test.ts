import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { createScratchPostgres, eventually, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import type { ClaimedReplay } from './replay-runs';
import { createReplayRunner, type ReplayRunner } from './replay-runner';

const env = infraEnv(process.env);

/** A reader that holds each replay until released, or until its run is aborted. */
function heldReader() {
  const started: string[] = [];
  const aborted: string[] = [];
  const releases = new Map<string, () => void>();
  return {
    started,
    aborted,
    release: (replayId: string) => releases.get(replayId)?.(),
    read: (replay: ClaimedReplay, signal: AbortSignal) =>
      new Promise<number>((resolve, reject) => {
        started.push(replay.replayId);
        releases.set(replay.replayId, () => resolve(1));
        signal.addEventListener('abort', () => {
          aborted.push(replay.replayId);
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        });
      }),
  };
}

describe('the replay runner (real Postgres, the log left out)', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  const accountId = randomUUID();
  const runners: ReplayRunner[] = [];
  const quiet = { error() {}, warn() {}, info() {}, debug() {} };

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    pool = await openDatabase({
      connectionString: db.url,
      max: 6,
      applicationName: 'replay-runner-int-test',
      migrationsDir: MIGRATIONS_DIR,
    });
    await pool.query(`INSERT INTO accounts (id, name, plan) VALUES ($1, 'replays', 'pro')`, [accountId]);
  });

  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop();
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  function start(reader: ReturnType<typeof heldReader>): ReplayRunner {
    const runner = createReplayRunner({ db: pool, read: reader.read, pollMs: 50, leaseMs: 1200, logger: quiet });
    runner.start();
    runners.push(runner);
    return runner;
  }

  async function replayOfNewWebhook(): Promise<{ webhookId: string; replayId: string }> {
    const webhookId = randomUUID();
    const replayId = randomUUID();
    await pool.query(
      `INSERT INTO webhooks (webhook_id, account_id, url, events) VALUES ($1, $2, 'https://hooks.example/', ARRAY['link.created'])`,
      [webhookId, accountId],
    );
    await pool.query(
      `INSERT INTO webhook_replays (replay_id, webhook_id, since, events) VALUES ($1, $2, now() - interval '1 day', ARRAY['link.created'])`,
      [replayId, webhookId],
    );
    return { webhookId, replayId };
  }

  const finishedAt = async (replayId: string) =>
    (await pool.query(`SELECT finished_at FROM webhook_replays WHERE replay_id = $1`, [replayId])).rows[0]
      ?.finished_at as Date | null | undefined;

  it('runs a replay in one runner only, past several leases, and hands it over when that runner stops', async () => {
    const first = heldReader();
    const second = heldReader();
    const runner = start(first);
    const { replayId } = await replayOfNewWebhook();
    await eventually(async () => (first.started.length > 0 ? true : undefined), 5000, 'taken');
    start(second);
    // Two leases go by: the lease is renewed, and the other runner never starts the replay
    await new Promise((resolve) => setTimeout(resolve, 2600));
    expect(second.started).toEqual([]);
    expect(await finishedAt(replayId)).toBeNull();
    // When the runner holding it stops, its run is aborted and the replay released: the other takes it at once
    await runner.stop();
    expect(first.aborted).toEqual([replayId]);
    await eventually(
      async () => (second.started.length > 0 ? true : undefined),
      500,
      'taken over before the lease ran out',
    );
    second.release(replayId);
    await eventually(async () => ((await finishedAt(replayId)) ? true : undefined), 5000, 'finished');
  });

  it('drops the run of a replay whose webhook was deleted', async () => {
    const reader = heldReader();
    start(reader);
    const { webhookId, replayId } = await replayOfNewWebhook();
    await eventually(async () => (reader.started.includes(replayId) ? true : undefined), 5000);
    await pool.query(`DELETE FROM webhooks WHERE webhook_id = $1`, [webhookId]);
    await eventually(async () => (reader.aborted.includes(replayId) ? true : undefined), 2000, 'the run aborted');
    expect(await finishedAt(replayId)).toBeUndefined();
  });
});
