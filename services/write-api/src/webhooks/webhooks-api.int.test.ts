import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { FastifyInstance } from 'fastify';
import { createAccountWithKey, memoryRateLimiter, postgresAuthenticator, requireApiKey } from '@shortlink/accounts';
import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { migrate, MIGRATIONS_DIR } from '@shortlink/postgres';
import { createScratchPostgres, infraEnv, type ScratchDatabase } from '@shortlink/testing';
import { GENERATED_KEY_NAME, openSealedSecret, parseEncryptionKey } from '@shortlink/webhooks';
import { idempotentRequests } from '../idempotency/idempotent-requests';
import { postgresIdempotencyStore } from '../idempotency/idempotency-store';
import { IDEMPOTENCY } from '../idempotency/idempotency-limits';
import { serviceAddresses } from '../links/rules/self-link';
import { composeWebhooksApi } from '../wiring';
import { registerWebhookRoutes } from './webhooks-api';

/**
 * The webhooks API on real Postgres (migration 0015), composed as the write
 * API composes it, with two accounts side by side: B never sees, changes,
 * tests, replays or lists A's webhook, and every 404 is the same.
 */
const env = infraEnv(process.env);

describe('the webhooks API on Postgres', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  let app: FastifyInstance;
  const keys = { a: '', b: '' };

  const account = async (name: string): Promise<string> =>
    `Bearer ${(await createAccountWithKey(pool, { accountName: name, keyName: name, plan: 'pro' })).key}`;

  beforeAll(async () => {
    db = await createScratchPostgres(env.DATABASE_URL);
    pool = new Pool({ connectionString: db.url, max: 4 });
    await migrate(pool, MIGRATIONS_DIR);
    keys.a = await account('a');
    keys.b = await account('b');
    const webhooks = composeWebhooksApi(
      { WEBHOOKS_ALLOW_HTTP: false, WEBHOOKS_ALLOW_PRIVATE_NETWORKS: false, WEBHOOKS_ENCRYPTION_KEY: undefined },
      pool,
    );
    const idempotent = idempotentRequests({
      store: postgresIdempotencyStore(pool, IDEMPOTENCY),
      waitMs: IDEMPOTENCY.waitMs,
      now: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    app = await buildProcessServer(
      [
        {
          name: 'write-api',
          async routes(scope) {
            scope.decorateRequest('account', null);
            registerWebhookRoutes(scope, webhooks, {
              authenticated: requireApiKey(postgresAuthenticator(pool), memoryRateLimiter({ free: 1000, pro: 1000 })),
              service: serviceAddresses('https://sho.rt'),
              idempotent,
            });
          },
        },
      ],
      {
        name: 'write-api',
        trustProxy: false,
        logger: false,
        metrics: createMetricsRegistry({ processMetrics: false }),
      },
      () => true,
    );
  });

  afterAll(async () => {
    await app?.close();
    await pool?.end();
    await db?.drop();
  });

  const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, authorization: string, payload?: unknown) =>
    app.inject({
      method,
      url,
      headers: { authorization },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  it('shows the secret once, keeps it sealed under the generated key, and never shows it again', async () => {
    const res = await send('POST', '/api/v1/webhooks', keys.a, {
      url: 'https://hooks.example.com/a',
      events: ['link.created', 'link.clicked'],
    });
    expect(res.statusCode).toBe(201);
    const { id, secret } = res.json<{ id: string; secret: string }>();
    const { rows } = await pool.query<{ sealed: string }>('SELECT sealed FROM webhook_secrets WHERE webhook_id = $1', [
      id,
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sealed).not.toContain(secret.slice(6));
    const { rows: kept } = await pool.query<{ value: string }>('SELECT value FROM instance_secrets WHERE name = $1', [
      GENERATED_KEY_NAME,
    ]);
    expect(openSealedSecret(parseEncryptionKey(kept[0]!.value)!, rows[0]!.sealed)).toBe(secret);
    for (const read of [
      await send('GET', `/api/v1/webhooks/${id}`, keys.a),
      await send('GET', '/api/v1/webhooks', keys.a),
    ]) {
      expect(read.statusCode).toBe(200);
      expect(read.body).not.toContain(secret);
    }
  });

  it('keeps account B away from A’s webhook: every route a 404 identical to an unknown id’s, nothing changed', async () => {
    const { id } = (
      await send('POST', '/api/v1/webhooks', keys.a, { url: 'https://hooks.example.com/b', events: ['link.deleted'] })
    ).json<{ id: string }>();
    const before = await pool.query('SELECT * FROM webhooks WHERE webhook_id = $1', [id]);
    const unknown = randomUUID();
    const routes: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown][] = [
      ['GET', '', undefined],
      ['PATCH', '', { enabled: false, url: 'https://evil.example.com/' }],
      ['POST', '/rotate-secret', undefined],
      ['POST', '/test', undefined],
      ['GET', '/deliveries', undefined],
      ['POST', '/replay', { since: '2026-01-01T00:00:00Z' }],
      ['DELETE', '', undefined],
    ];
    for (const [method, suffix, body] of routes) {
      const theirs = await send(method, `/api/v1/webhooks/${id}${suffix}`, keys.b, body);
      const nobody = await send(method, `/api/v1/webhooks/${unknown}${suffix}`, keys.b, body);
      expect(theirs.statusCode).toBe(404);
      // The same body, but for the id asked for, which the detail names.
      expect(theirs.body.replace(id, '{id}')).toBe(nobody.body.replace(unknown, '{id}'));
    }
    const listed = (await send('GET', '/api/v1/webhooks', keys.b)).json<{ webhooks: unknown[] }>();
    expect(listed.webhooks).toEqual([]);
    expect((await pool.query('SELECT * FROM webhooks WHERE webhook_id = $1', [id])).rows).toEqual(before.rows);
    const counts = await pool.query<{ secrets: number; deliveries: number; replays: number }>(
      `SELECT (SELECT count(*)::int FROM webhook_secrets WHERE webhook_id = $1) AS secrets,
              (SELECT count(*)::int FROM webhook_deliveries WHERE webhook_id = $1) AS deliveries,
              (SELECT count(*)::int FROM webhook_replays WHERE webhook_id = $1) AS replays`,
      [id],
    );
    expect(counts.rows[0]).toEqual({ secrets: 1, deliveries: 0, replays: 0 });
  });

  it('rotates: the previous secret expires in 24 hours, an older one at once', async () => {
    const { id } = (
      await send('POST', '/api/v1/webhooks', keys.a, { url: 'https://hooks.example.com/c', events: ['link.updated'] })
    ).json<{ id: string }>();
    const first = await send('POST', `/api/v1/webhooks/${id}/rotate-secret`, keys.a);
    expect(first.statusCode).toBe(200);
    const expiresAt = new Date(first.json<{ previousSecretExpiresAt: string }>().previousSecretExpiresAt);
    expect(Math.abs(expiresAt.getTime() - Date.now() - 24 * 3_600_000)).toBeLessThan(60_000);
    await send('POST', `/api/v1/webhooks/${id}/rotate-secret`, keys.a);
    const { rows } = await pool.query<{ expires_at: Date | null; live: boolean }>(
      `SELECT expires_at, expires_at IS NULL OR expires_at > now() AS live FROM webhook_secrets
        WHERE webhook_id = $1 ORDER BY created_at`,
      [id],
    );
    expect(rows.map((r) => r.live)).toEqual([false, true, true]);
    expect(rows[2]!.expires_at).toBeNull();
  });

  it('inserts the rows the test and replay endpoints promise, and lists attempts newest first', async () => {
    const { id } = (
      await send('POST', '/api/v1/webhooks', keys.a, {
        url: 'https://hooks.example.com/d',
        events: ['link.created', 'link.deleted'],
      })
    ).json<{ id: string }>();
    const test = await send('POST', `/api/v1/webhooks/${id}/test`, keys.a);
    expect(test.statusCode).toBe(202);
    const { messageId } = test.json<{ messageId: string }>();
    const { rows: queued } = await pool.query(
      'SELECT message_id, event_type, payload, replay_id, attempts FROM webhook_deliveries WHERE webhook_id = $1',
      [id],
    );
    expect(queued).toEqual([
      { message_id: messageId, event_type: 'webhook.test', payload: expect.any(String), replay_id: null, attempts: 0 },
    ]);
    expect(JSON.parse(queued[0].payload)).toEqual({
      type: 'webhook.test',
      timestamp: expect.any(String),
      data: { webhookId: id },
    });

    const replay = await send('POST', `/api/v1/webhooks/${id}/replay`, keys.a, {
      since: '2026-01-01T00:00:00Z',
      events: ['link.deleted'],
    });
    expect(replay.statusCode).toBe(202);
    const { rows: replays } = await pool.query(
      'SELECT replay_id, since, until, events, finished_at FROM webhook_replays WHERE webhook_id = $1',
      [id],
    );
    expect(replays).toEqual([
      {
        replay_id: replay.json<{ replayId: string }>().replayId,
        since: new Date('2026-01-01T00:00:00Z'),
        until: null,
        events: ['link.deleted'],
        finished_at: null,
      },
    ]);

    // Attempts as the dispatcher writes them: one 8 days old (not listed), three recent.
    for (const [ago, status] of [
      ['8 days', 500],
      ['3 hours', 500],
      ['2 hours', null],
      ['1 hour', 200],
    ] as const) {
      await pool.query(
        `INSERT INTO webhook_attempts (webhook_id, message_id, event_type, attempt, attempted_at, response_status, error, latency_ms)
         VALUES ($1, $2, 'webhook.test', 1, now() - $3::interval, $4, $5, 40)`,
        [id, `${messageId}-${ago}`, ago, status, status === null ? 'timeout' : null],
      );
    }
    const page = (await send('GET', `/api/v1/webhooks/${id}/deliveries?limit=2`, keys.a)).json<{
      deliveries: { messageId: string; responseStatus: number | null; error: string | null }[];
      nextCursor: string;
    }>();
    expect(page.deliveries.map((d) => d.messageId)).toEqual([`${messageId}-1 hour`, `${messageId}-2 hours`]);
    expect(page.deliveries[1]).toMatchObject({ responseStatus: null, error: 'timeout' });
    const rest = (await send('GET', `/api/v1/webhooks/${id}/deliveries?cursor=${page.nextCursor}`, keys.a)).json<{
      deliveries: { messageId: string }[];
      nextCursor: null;
    }>();
    expect(rest).toEqual({
      deliveries: [expect.objectContaining({ messageId: `${messageId}-3 hours` })],
      nextCursor: null,
    });
    // Account B's view of A's deliveries is the unknown webhook's.
    expect((await send('GET', `/api/v1/webhooks/${id}/deliveries`, keys.b)).statusCode).toBe(404);
  });

  it('pages the list by creation, and holds the bound of 20 under concurrent creates', async () => {
    const c = await account('c');
    const creates = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        send('POST', '/api/v1/webhooks', c, { url: `https://hooks.example.com/${i}`, events: ['link.created'] }),
      ),
    );
    expect(creates.filter((r) => r.statusCode === 201)).toHaveLength(20);
    expect(creates.filter((r) => r.statusCode === 403)).toHaveLength(5);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '?limit=7' : `?limit=7&cursor=${cursor}`;
      const page = (await send('GET', `/api/v1/webhooks${query}`, c)).json<{
        webhooks: { id: string }[];
        nextCursor: string | null;
      }>();
      seen.push(...page.webhooks.map((w) => w.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(20);
  });

  it('disabling by PATCH records why; disabling again keeps the dispatcher’s reason', async () => {
    const { id } = (
      await send('POST', '/api/v1/webhooks', keys.b, { url: 'https://hooks.example.com/f', events: ['link.created'] })
    ).json<{ id: string }>();
    const off = await send('PATCH', `/api/v1/webhooks/${id}`, keys.b, { enabled: false });
    expect(off.json()).toMatchObject({ enabled: false, disabledReason: 'user', disabledAt: expect.any(String) });
    await pool.query(`UPDATE webhooks SET disabled_reason = 'gone' WHERE webhook_id = $1`, [id]);
    const again = await send('PATCH', `/api/v1/webhooks/${id}`, keys.b, { enabled: false, description: 'old' });
    expect(again.json()).toMatchObject({ enabled: false, disabledReason: 'gone', description: 'old' });
    expect((await send('POST', `/api/v1/webhooks/${id}/test`, keys.b)).statusCode).toBe(409);
  });

  it('re-enabling clears why the dispatcher disabled it', async () => {
    const { id } = (
      await send('POST', '/api/v1/webhooks', keys.b, { url: 'https://hooks.example.com/e', events: ['link.created'] })
    ).json<{ id: string }>();
    await pool.query(
      `UPDATE webhooks SET enabled = false, disabled_reason = 'failing', disabled_at = now(), failing_since = now() - interval '1 day' WHERE webhook_id = $1`,
      [id],
    );
    expect((await send('GET', `/api/v1/webhooks/${id}`, keys.b)).json()).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
    });
    const on = await send('PATCH', `/api/v1/webhooks/${id}`, keys.b, { enabled: true });
    expect(on.json()).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
    const { rows } = await pool.query(
      'SELECT disabled_reason, disabled_at, failing_since FROM webhooks WHERE webhook_id = $1',
      [id],
    );
    expect(rows[0]).toEqual({ disabled_reason: null, disabled_at: null, failing_since: null });
  });
});
