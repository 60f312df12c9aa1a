import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { MIGRATIONS_DIR, openDatabase } from '@shortlink/postgres';
import { createScratchPostgres, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import {
  claimDueDeliveries,
  enqueueDeliveries,
  purgeAttempts,
  recordOutcomes,
  releaseDeliveries,
  type ClaimOptions,
  type Enqueued,
} from './delivery-queue';

const env = infraEnv(process.env);

describe('the delivery queue (real Postgres)', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  let accountId: string;

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    pool = await openDatabase({
      connectionString: db.url,
      max: 6,
      applicationName: 'delivery-queue-int-test',
      migrationsDir: MIGRATIONS_DIR,
    });
    accountId = randomUUID();
    await pool.query(`INSERT INTO accounts (id, name, plan) VALUES ($1, 'webhooks', 'pro')`, [accountId]);
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  beforeEach(() => pool.query('DELETE FROM webhook_deliveries; DELETE FROM webhook_attempts'));

  async function endpoint(enabled = true): Promise<string> {
    const id = randomUUID();
    await pool.query(
      `INSERT INTO webhooks (webhook_id, account_id, url, events, enabled, disabled_reason)
       VALUES ($1, $2, $3, ARRAY['link.created'], $4, $5)`,
      [id, accountId, `https://hooks.example/${id}`, enabled, enabled ? null : 'user'],
    );
    return id;
  }

  const message = (id: string, orderingKey: string | null = null): Enqueued['message'] => ({
    messageId: id,
    type: 'link.created',
    orderingKey,
    payload: JSON.stringify({ type: 'link.created', timestamp: '2026-12-01T10:00:00.000Z', data: { id } }),
  });

  const claim = (options: Partial<ClaimOptions> = {}) =>
    claimDueDeliveries(pool, { perEndpoint: 10, limit: 1000, inFlight: new Map(), leaseMs: 30_000, ...options });

  it('queues many messages for many endpoints in one statement, once each however often they are read', async () => {
    const [a, b] = [await endpoint(), await endpoint()];
    const items = [
      { message: message('m1', 'link-1'), webhookIds: [a, b] },
      { message: message('m2', 'link-2'), webhookIds: [a] },
      { message: message('m3', null), webhookIds: [] },
    ];
    expect(await enqueueDeliveries(pool, items)).toBe(3);
    // The same events read again after a restart
    expect(await enqueueDeliveries(pool, items)).toBe(0);
    const { rows } = await pool.query(
      `SELECT webhook_id, message_id, payload FROM webhook_deliveries ORDER BY delivery_id`,
    );
    expect(rows.map((r) => [r.webhook_id, r.message_id])).toEqual([
      [a, 'm1'],
      [b, 'm1'],
      [a, 'm2'],
    ]);
    expect(JSON.parse(rows[0].payload).data.id).toBe('m1');
  });

  it('stores each payload exactly, whatever its characters, beside payloads of other lengths', async () => {
    const [a, b] = [await endpoint(), await endpoint()];
    // Multi-byte characters shift every later payload's byte position: each must still be cut where it lies.
    const payloads = [
      JSON.stringify({ data: { slug: 'zürich-🙂', note: 'quote " backslash \\ 中文' } }),
      '',
      JSON.stringify({ data: { referrer: 'https://例え.jp', ua: '\u0000 not a NUL, é' } }),
      'x'.repeat(70_000),
    ];
    await enqueueDeliveries(
      pool,
      payloads.map((payload, i) => ({ message: { ...message(`p${i}`), payload }, webhookIds: i === 2 ? [a, b] : [a] })),
    );
    const { rows } = await pool.query<{ message_id: string; payload: string }>(
      `SELECT message_id, payload FROM webhook_deliveries ORDER BY delivery_id`,
    );
    expect(rows.map((r) => [r.message_id, r.payload])).toEqual([
      ['p0', payloads[0]],
      ['p1', payloads[1]],
      ['p2', payloads[2]],
      ['p2', payloads[2]],
      ['p3', payloads[3]],
    ]);
  });

  it('claims only the head of each link’s line, of enabled endpoints, within each endpoint’s slots', async () => {
    const [a, b, off] = [await endpoint(), await endpoint(), await endpoint(false)];
    await enqueueDeliveries(pool, [
      { message: message('a-l1-v1', 'l1'), webhookIds: [a] },
      { message: message('a-l1-v2', 'l1'), webhookIds: [a] },
      { message: message('a-l2-v1', 'l2'), webhookIds: [a] },
      { message: message('a-c1', null), webhookIds: [a] },
      { message: message('a-c2', null), webhookIds: [a] },
      { message: message('b-l1-v1', 'l1'), webhookIds: [b] },
      { message: message('off-1', null), webhookIds: [off] },
    ]);
    // Given three slots per endpoint
    const first = await claim({ perEndpoint: 3 });
    const ids = (webhookId: string) => first.filter((c) => c.webhookId === webhookId).map((c) => c.messageId);
    // Then a's first three heads, never l1's second event while its first is queued; b's one; nothing of off
    expect(ids(a)).toEqual(['a-l1-v1', 'a-l2-v1', 'a-c1']);
    expect(ids(b)).toEqual(['b-l1-v1']);
    expect(ids(off)).toEqual([]);
    expect(first[0]).toMatchObject({ url: `https://hooks.example/${first[0]!.webhookId}`, attempts: 0, replay: false });
    // Leased: claimed again, nothing comes back but what was left
    expect((await claim({ perEndpoint: 3 })).map((c) => c.messageId)).toEqual(['a-c2']);
    // Given l1's first event delivered, its second is the head
    const head = first.find((c) => c.messageId === 'a-l1-v1')!;
    await recordOutcomes(pool, { remove: [head.deliveryId], reschedule: [], attempts: [], endpoints: [] });
    expect((await claim()).map((c) => c.messageId)).toEqual(['a-l1-v2']);
  });

  it('counts the attempts in flight against an endpoint’s slots, and lets endpoints take turns under the limit', async () => {
    const [a, b] = [await endpoint(), await endpoint()];
    await enqueueDeliveries(pool, [
      ...['1', '2', '3', '4'].map((n) => ({ message: message(`a${n}`), webhookIds: [a] })),
      ...['1', '2', '3', '4'].map((n) => ({ message: message(`b${n}`), webhookIds: [b] })),
    ]);
    const claimed = await claim({ perEndpoint: 4, inFlight: new Map([[a, 3]]), limit: 3 });
    // a has one free slot; b's first turn comes before a second turn of anyone
    expect(claimed.map((c) => c.messageId).sort()).toEqual(['a1', 'b1', 'b2']);
    expect(await claim({ perEndpoint: 4, inFlight: new Map([[a, 4]]) })).toHaveLength(2);
  });

  it('never gives one message to two dispatchers claiming at once', async () => {
    const hooks = [await endpoint(), await endpoint(), await endpoint()];
    await enqueueDeliveries(
      pool,
      Array.from({ length: 300 }, (_, i) => ({ message: message(`m${i}`, `link-${i % 7}`), webhookIds: hooks })),
    );
    // Connections opened beforehand, so the claims meet at the server
    await Promise.all(Array.from({ length: 6 }, () => pool.query('SELECT pg_sleep(0.05)')));
    for (let round = 0; round < 20; round++) {
      await pool.query('UPDATE webhook_deliveries SET next_attempt_at = now()');
      const claims = await Promise.all(Array.from({ length: 6 }, () => claim({ perEndpoint: 50 })));
      const all = claims.flat().map((c) => c.deliveryId);
      expect(new Set(all).size).toBe(all.length);
      // Each endpoint has 7 lines: 7 heads to claim, all of them claimed
      expect(all.length).toBe(21);
    }
  });

  it('records a round: delivered out, failed rescheduled, attempts logged, endpoints failing, disabled or healthy', async () => {
    const [ok, failing, gone, owned] = [await endpoint(), await endpoint(), await endpoint(), await endpoint()];
    await pool.query(`UPDATE webhooks SET failing_since = '2026-12-01T00:00:00Z' WHERE webhook_id = ANY($1)`, [
      [ok, failing],
    ]);
    await enqueueDeliveries(pool, [
      { message: message('d1'), webhookIds: [ok] },
      { message: message('f1'), webhookIds: [failing] },
      { message: message('g1'), webhookIds: [gone] },
    ]);
    const claimed = await claim();
    const of = (id: string) => claimed.find((c) => c.webhookId === id)!;
    const retryAt = new Date(Date.now() + 60_000);
    const attemptedAt = new Date();
    await recordOutcomes(pool, {
      remove: [of(ok).deliveryId],
      reschedule: [
        { deliveryId: of(failing).deliveryId, at: retryAt },
        { deliveryId: of(gone).deliveryId, at: attemptedAt },
      ],
      attempts: [
        {
          webhookId: ok,
          messageId: 'd1',
          eventType: 'link.created',
          attempt: 1,
          replay: false,
          attemptedAt,
          status: 204,
          error: null,
          latencyMs: 12,
        },
        {
          webhookId: failing,
          messageId: 'f1',
          eventType: 'link.created',
          attempt: 1,
          replay: false,
          attemptedAt,
          status: null,
          error: 'timeout',
          latencyMs: 10_000,
        },
        {
          webhookId: gone,
          messageId: 'g1',
          eventType: 'link.created',
          attempt: 1,
          replay: false,
          attemptedAt,
          status: 410,
          error: null,
          latencyMs: 5,
        },
      ],
      endpoints: [
        { webhookId: ok, failingSince: null, disable: null },
        // A later failing time than the one stored: the stored one stands
        { webhookId: failing, failingSince: attemptedAt, disable: null },
        { webhookId: gone, failingSince: null, disable: 'gone' },
      ],
    });
    await pool.query(`UPDATE webhooks SET enabled = false, disabled_reason = 'user' WHERE webhook_id = $1`, [owned]);
    await recordOutcomes(pool, {
      remove: [],
      reschedule: [],
      attempts: [],
      endpoints: [{ webhookId: owned, failingSince: attemptedAt, disable: 'failing' }],
    });

    const hooks = new Map(
      (
        await pool.query(
          `SELECT webhook_id, enabled, disabled_reason, disabled_at, failing_since FROM webhooks WHERE webhook_id = ANY($1)`,
          [[ok, failing, gone, owned]],
        )
      ).rows.map((r) => [r.webhook_id, r]),
    );
    expect(hooks.get(ok)).toMatchObject({ enabled: true, failing_since: null });
    expect(hooks.get(failing)).toMatchObject({ enabled: true, failing_since: new Date('2026-12-01T00:00:00Z') });
    expect(hooks.get(gone)).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    expect(hooks.get(gone).disabled_at).toBeInstanceOf(Date);
    expect(hooks.get(owned)).toMatchObject({ enabled: false, disabled_reason: 'user', disabled_at: null });

    const queue = (
      await pool.query(`SELECT message_id, attempts, next_attempt_at FROM webhook_deliveries ORDER BY message_id`)
    ).rows;
    expect(queue.map((r) => [r.message_id, r.attempts])).toEqual([
      ['f1', 1],
      ['g1', 1],
    ]);
    expect(queue[0].next_attempt_at).toEqual(retryAt);
    const log = (
      await pool.query(`SELECT message_id, response_status, error FROM webhook_attempts ORDER BY message_id`)
    ).rows;
    expect(log).toEqual([
      { message_id: 'd1', response_status: 204, error: null },
      { message_id: 'f1', response_status: null, error: 'timeout' },
      { message_id: 'g1', response_status: 410, error: null },
    ]);
    // Nothing due: f1 waits a minute, g1's endpoint is disabled
    expect(await claim()).toEqual([]);
  });

  it('writes an endpoint only when its state changes: a healthy endpoint’s rounds leave its row as it was', async () => {
    const [healthy, newlyFailing] = [await endpoint(), await endpoint()];
    const version = async (id: string) =>
      (await pool.query(`SELECT xmin::text AS v, failing_since FROM webhooks WHERE webhook_id = $1`, [id])).rows[0];
    const before = await version(healthy);
    const failedAt = new Date('2026-12-02T00:00:00Z');

    await recordOutcomes(pool, {
      remove: [],
      reschedule: [],
      attempts: [],
      endpoints: [
        { webhookId: healthy, failingSince: null, disable: null },
        { webhookId: newlyFailing, failingSince: failedAt, disable: null },
      ],
    });

    expect(await version(healthy)).toEqual(before);
    expect((await version(newlyFailing)).failing_since).toEqual(failedAt);
  });

  it('gives claimed messages back at a stop, and purges attempts older than 7 days', async () => {
    const a = await endpoint();
    await enqueueDeliveries(pool, [{ message: message('r1'), webhookIds: [a] }]);
    const [claimed] = await claim();
    expect(await claim()).toEqual([]);
    await releaseDeliveries(pool, [claimed!.deliveryId]);
    expect((await claim()).map((c) => c.messageId)).toEqual(['r1']);

    const day = 24 * 3_600_000;
    for (const ageDays of [8, 7.01, 6.9, 0]) {
      await pool.query(
        `INSERT INTO webhook_attempts (webhook_id, message_id, event_type, attempt, attempted_at, latency_ms)
         VALUES ($1, $2, 'link.created', 1, now() - make_interval(secs => $3), 1)`,
        [a, `age-${ageDays}`, (ageDays * day) / 1000],
      );
    }
    expect(await purgeAttempts(pool, 1)).toBe(1);
    expect(await purgeAttempts(pool)).toBe(1);
    const left = (await pool.query(`SELECT message_id FROM webhook_attempts ORDER BY message_id`)).rows;
    expect(left.map((r) => r.message_id)).toEqual(['age-0', 'age-6.9']);
  });
});
