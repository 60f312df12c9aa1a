import {
  createAuthenticator,
  generateApiKey,
  memoryRateLimiter,
  requireApiKey,
  type ActiveKey,
} from '@shortlink/accounts';
import { buildProcessServer, type ServiceModule } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { createdWebhookSchema, deliveryAttemptSchema, openSealedSecret, webhookSchema } from '@shortlink/webhooks';
import type { FastifyInstance } from 'fastify';
import { idempotentRequests } from '../idempotency/idempotent-requests';
import { serviceAddresses } from '../links/rules/self-link';
import { memoryWebhookStore } from './stores/memory-webhook-store';
import { registerWebhookRoutes, type WebhooksApiDeps } from './webhooks-api';

/**
 * The webhook routes as a process serves them (buildProcessServer, the real
 * authenticator, rate limiter, error handler and Idempotency-Key hooks) on the
 * in-memory webhook store.
 */

const NOW = new Date('2026-11-22T10:00:00.123Z');
const KEY = Buffer.alloc(32, 9);

function apiKey(name: string) {
  const { key, hash } = generateApiKey();
  const active: ActiveKey = { keyId: `key-${name}`, account: { id: `account-${name}`, name, plan: 'pro' } };
  return { authorization: `Bearer ${key}`, hash, active };
}
const owner = apiKey('owner');
const other = apiKey('other');

let app: FastifyInstance;
afterEach(() => app?.close());

async function webhooksApi(overrides: Partial<WebhooksApiDeps> = {}) {
  const memory = memoryWebhookStore(() => NOW);
  const keys = new Map([owner, other].map((k) => [k.hash.toString('hex'), k.active]));
  let ids = 0;
  let messages = 0;
  const idempotencyKeys = new Map<string, { hash: string; response: unknown }>();
  const deps: WebhooksApiDeps = {
    store: memory.store,
    sealingKey: async () => KEY,
    allowHttp: false,
    allowPrivateNetworks: false,
    now: () => NOW,
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
    newMessageId: () => `msg_test${++messages}`,
    ...overrides,
  };
  const authenticate = createAuthenticator({
    findKeyByHash: async (hash) => keys.get(hash.toString('hex')) ?? null,
    now: Date.now,
    cacheTtlMs: 0,
    cacheSize: 10,
  });
  const idempotent = idempotentRequests({
    store: {
      async begin(ref, requestHash) {
        const id = `${ref.accountId}/${ref.key}`;
        const seen = idempotencyKeys.get(id);
        if (seen) return { kind: 'seen', seen: { requestHash: seen.hash, response: seen.response as never } };
        idempotencyKeys.set(id, { hash: requestHash, response: null });
        return { kind: 'acquired', owner: 'o', workId: id, resumed: false };
      },
      async complete(ref, _owner, response) {
        const entry = idempotencyKeys.get(`${ref.accountId}/${ref.key}`);
        if (entry) entry.response = response;
      },
      async release() {},
      purgeExpired: async () => 0,
    },
    waitMs: 0,
    now: Date.now,
    sleep: async () => undefined,
  });
  const module: ServiceModule = {
    name: 'write-api',
    async routes(scope) {
      scope.decorateRequest('account', null);
      registerWebhookRoutes(scope, deps, {
        authenticated: requireApiKey(authenticate, memoryRateLimiter({ free: 1000, pro: 1000 })),
        service: serviceAddresses('https://sho.rt', {}, 'writer-host'),
        idempotent,
      });
    },
  };
  app = await buildProcessServer(
    [module],
    { name: 'write-api', trustProxy: false, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
    () => true,
  );
  return memory;
}

const send = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  authorization = owner.authorization,
  headers: Record<string, string> = {},
) =>
  app.inject({
    method,
    url,
    headers: { authorization, ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const create = (payload: unknown, authorization = owner.authorization) =>
  send('POST', '/api/v1/webhooks', payload, authorization);
const VALID = { url: 'https://hooks.example.com/in', events: ['link.created', 'link.clicked'] };

describe('POST /api/v1/webhooks', () => {
  it('answers 201 with the webhook and its secret, and keeps only the sealed secret', async () => {
    const memory = await webhooksApi();
    const res = await create({ ...VALID, description: 'CRM' });
    expect(res.statusCode).toBe(201);
    const body = createdWebhookSchema.parse(res.json());
    expect(body).toMatchObject({
      url: VALID.url,
      events: VALID.events,
      description: 'CRM',
      enabled: true,
      disabledReason: null,
    });
    expect(body.secret).toMatch(/^whsec_/);
    const stored = memory.secrets[0]!;
    expect(stored.sealed).not.toContain(body.secret.slice(6));
    expect(openSealedSecret(KEY, stored.sealed)).toBe(body.secret);
  });

  it('never shows the secret again: not in a read, a list or a change', async () => {
    await webhooksApi();
    const { id, secret } =
      create === undefined ? ({} as never) : createdWebhookSchema.parse((await create(VALID)).json());
    for (const res of [
      await send('GET', `/api/v1/webhooks/${id}`),
      await send('GET', '/api/v1/webhooks'),
      await send('PATCH', `/api/v1/webhooks/${id}`, { description: 'x' }),
    ]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(secret);
      expect(res.body).not.toContain('secret');
    }
  });

  it('stores events in one order, whatever the request’s', async () => {
    await webhooksApi();
    const res = await create({ url: VALID.url, events: ['link.deleted', 'link.created'] });
    expect(res.json()).toMatchObject({ events: ['link.created', 'link.deleted'] });
  });

  const hostileUrls: [string, unknown, string][] = [
    ['ftp:', 'ftp://files.example.com/x', 'invalid_webhook_url'],
    ['http without the switch', 'http://hooks.example.com/in', 'webhook_url_not_https'],
    ['userinfo', 'https://user:pass@hooks.example.com/in', 'url_credentials'],
    ['a user name alone', 'https://user@hooks.example.com/in', 'url_credentials'],
    ['loopback', 'https://127.0.0.1/in', 'webhook_url_private'],
    ['loopback as a number', 'https://2130706433/in', 'webhook_url_private'],
    ['loopback in hex', 'https://0x7f.0.0.1/in', 'webhook_url_private'],
    ['IPv6 loopback', 'https://[::1]/in', 'webhook_url_private'],
    ['metadata', 'https://169.254.169.254/latest/meta-data', 'webhook_url_private'],
    ['IPv6 metadata', 'https://[fd00:ec2::254]/', 'webhook_url_private'],
    ['private 10/8', 'https://10.0.0.1/in', 'webhook_url_private'],
    ['private 192.168/16', 'https://192.168.1.10/in', 'webhook_url_private'],
    ['CGNAT', 'https://100.64.0.1/in', 'webhook_url_private'],
    ['IPv4-mapped IPv6', 'https://[::ffff:10.0.0.1]/in', 'webhook_url_private'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/in', 'webhook_url_private'],
    ['unique-local IPv6', 'https://[fc00::1]/in', 'webhook_url_private'],
    ['link-local IPv6', 'https://[fe80::1]/in', 'webhook_url_private'],
    ['unspecified', 'https://0.0.0.0/in', 'webhook_url_private'],
    ['localhost', 'https://localhost/in', 'webhook_url_private'],
    ['a .localhost name', 'https://api.localhost./in', 'webhook_url_private'],
    ['this service', 'https://sho.rt/hook', 'url_self_reference'],
    ['a fragment', 'https://hooks.example.com/in#x', 'invalid_webhook_url'],
    ['a control character', 'https://hooks.example.com/\u0007', 'invalid_webhook_url'],
    ['a newline', 'https://hooks.example.com/\nHost: evil', 'invalid_webhook_url'],
    ['white space around it', ' https://hooks.example.com/in', 'invalid_webhook_url'],
    ['no scheme', 'hooks.example.com/in', 'invalid_webhook_url'],
    ['javascript:', 'javascript:alert(1)', 'invalid_webhook_url'],
    ['no host', 'https://', 'invalid_webhook_url'],
    ['10 KB', `https://hooks.example.com/${'a'.repeat(10_000)}`, 'url_too_long'],
    ['a number', 42, 'invalid_webhook_url'],
    ['null', null, 'invalid_webhook_url'],
    ['missing', undefined, 'invalid_webhook_url'],
  ];
  it.each(hostileUrls)('refuses a URL with %s, naming the field', async (_name, url, code) => {
    const memory = await webhooksApi();
    const res = await create({ url, events: ['link.created'] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code, field: 'url' });
    expect(typeof res.json().detail).toBe('string');
    expect(res.json().detail.length).toBeLessThan(200);
    expect(res.body).not.toContain('pass@');
    expect(memory.webhooks.size).toBe(0);
  });

  it('says what kind of address a refused host is', async () => {
    await webhooksApi();
    const res = await create({ url: 'https://[fe80::1]/in', events: ['link.created'] });
    expect(res.json().detail).toBe('url\'s host "[fe80::1]" is a link local address.');
  });

  it('takes http and private addresses when the operator allows them (local testing)', async () => {
    await webhooksApi({ allowHttp: true, allowPrivateNetworks: true });
    for (const url of [
      'http://127.0.0.1:9999/in',
      'http://[::1]:8080/',
      'https://10.0.0.1/in',
      'http://localhost:4000/x',
    ]) {
      expect((await create({ url, events: ['link.created'] })).statusCode).toBe(201);
    }
    // The service itself stays refused: a webhook to it would loop.
    expect((await create({ url: 'https://sho.rt/x', events: ['link.created'] })).json().code).toBe(
      'url_self_reference',
    );
  });

  const hostileEvents: [string, unknown, RegExp][] = [
    ['empty', [], /empty/],
    ['unknown', ['link.exploded'], /"link\.exploded".*link\.created, link\.updated, link\.deleted, link\.clicked/],
    ['a duplicate', ['link.created', 'link.created'], /twice/],
    ['webhook.test', ['webhook.test'], /only by POST/],
    ['a string', 'link.created', /array/],
    ['a number inside', [1], /number 1/],
    ['missing', undefined, /missing/],
    ['10 KB', ['x'.repeat(10_000)], /not an event type/],
  ];
  it.each(hostileEvents)(
    'refuses events %s: 400 invalid_events naming the value and the valid ones',
    async (_n, events, detail) => {
      await webhooksApi();
      const res = await create({ url: VALID.url, events });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_events', field: 'events' });
      expect(res.json().detail).toMatch(detail);
    },
  );

  const hostileBodies: [string, unknown, string, string | undefined][] = [
    ['an array', [VALID], 'invalid_body', undefined],
    ['an unknown field', { ...VALID, secret: 'mine' }, 'unknown_field', 'secret'],
    ['a near miss', { ...VALID, evnets: [] }, 'unknown_field', 'evnets'],
    ['a long description', { ...VALID, description: 'd'.repeat(10_000) }, 'invalid_description', 'description'],
    ['a control character in the description', { ...VALID, description: 'a\u0000b' }, 'invalid_body', undefined],
    ['a description of another type', { ...VALID, description: 5 }, 'invalid_description', 'description'],
  ];
  it.each(hostileBodies)('refuses a body with %s', async (_n, body, code, field) => {
    await webhooksApi();
    const res = await create(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe(code);
    if (field !== undefined) expect(res.json().field).toBe(field);
  });

  it('suggests the field meant', async () => {
    await webhooksApi();
    expect((await create({ ...VALID, evnets: [] })).json().detail).toMatch(/did you mean events\?/);
  });

  it('answers 403 past 20 webhooks an account, and counts each account apart', async () => {
    await webhooksApi();
    for (let i = 0; i < 20; i++) expect((await create(VALID)).statusCode).toBe(201);
    const res = await create(VALID);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('webhook_limit_reached');
    expect((await create(VALID, other.authorization)).statusCode).toBe(201);
  });

  it('answers 401 without a key', async () => {
    await webhooksApi();
    expect((await create(VALID, '')).statusCode).toBe(401);
  });
});

describe('another account’s webhook', () => {
  it('is a 404 exactly like an unknown one, on every route', async () => {
    const memory = await webhooksApi();
    const { id } = (await create(VALID)).json();
    const unknown = '00000000-0000-4000-8000-999999999999';
    const routes: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown][] = [
      ['GET', '', undefined],
      ['PATCH', '', { enabled: false }],
      ['DELETE', '', undefined],
      ['POST', '/rotate-secret', undefined],
      ['POST', '/test', undefined],
      ['GET', '/deliveries', undefined],
      ['POST', '/replay', { since: '2026-11-21T00:00:00Z' }],
    ];
    for (const [method, suffix, body] of routes) {
      const theirs = await send(method, `/api/v1/webhooks/${id}${suffix}`, body, other.authorization);
      const nobody = await send(method, `/api/v1/webhooks/${unknown}${suffix}`, body, other.authorization);
      const garbled = await send(method, `/api/v1/webhooks/not-an-id${suffix}`, body, other.authorization);
      expect([theirs.statusCode, nobody.statusCode, garbled.statusCode]).toEqual([404, 404, 404]);
      // The same body, but for the id asked for, which the detail names.
      const asked = (body: string, askedId: string) => body.replace(askedId, '{id}');
      expect(asked(theirs.body, id)).toBe(asked(nobody.body, unknown));
      expect(asked(garbled.body, 'not-an-id')).toBe(asked(nobody.body, unknown));
      expect(nobody.json()).toEqual({
        error: 'Webhook not found',
        code: 'not_found',
        detail: `This account has no webhook "${unknown}" (or it was deleted).`,
      });
    }
    expect((await send('GET', '/api/v1/webhooks', undefined, other.authorization)).json().webhooks).toEqual([]);
    expect(memory.webhooks.get(id)?.enabled).toBe(true);
    expect(memory.secrets).toHaveLength(1);
    expect(memory.deliveries).toHaveLength(0);
    expect(memory.replays).toHaveLength(0);
  });

  it('answers 404 to a PATCH with a bad body too: nothing about it shows through', async () => {
    await webhooksApi();
    const { id } = (await create(VALID)).json();
    const res = await send('PATCH', `/api/v1/webhooks/${id}`, { url: 'ftp://x' }, other.authorization);
    expect(res.statusCode).toBe(404);
  });
});

describe('GET /api/v1/webhooks', () => {
  it('pages newest first with an opaque cursor', async () => {
    await webhooksApi();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(VALID)).json().id);
    const first = (await send('GET', '/api/v1/webhooks?limit=2')).json();
    expect(first.webhooks.map((w: { id: string }) => w.id)).toEqual([ids[4], ids[3]]);
    const second = (await send('GET', `/api/v1/webhooks?limit=2&cursor=${first.nextCursor}`)).json();
    expect(second.webhooks.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    const last = (await send('GET', `/api/v1/webhooks?limit=2&cursor=${second.nextCursor}`)).json();
    expect(last).toEqual({ webhooks: [webhookSchema.parse(last.webhooks[0])], nextCursor: null });
  });

  it.each([
    ['limit 0', 'limit=0', 'invalid_limit'],
    ['limit 101', 'limit=101', 'invalid_limit'],
    ['a word for limit', 'limit=abc', 'invalid_limit'],
    ['limit twice', 'limit=1&limit=2', 'invalid_limit'],
    ['a garbled cursor', 'cursor=garbage', 'invalid_cursor'],
    ['a 10 KB cursor', `cursor=${'A'.repeat(10_000)}`, 'invalid_cursor'],
  ])('refuses %s', async (_name, query, code) => {
    await webhooksApi();
    const res = await send('GET', `/api/v1/webhooks?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe(code);
  });
});

describe('PATCH /api/v1/webhooks/:id', () => {
  it('disables with reason user, and enabling again clears the reason', async () => {
    const memory = await webhooksApi();
    const { id } = (await create(VALID)).json();
    const off = await send('PATCH', `/api/v1/webhooks/${id}`, { enabled: false });
    expect(off.json()).toMatchObject({ enabled: false, disabledReason: 'user', disabledAt: NOW.toISOString() });
    // As the dispatcher would disable it:
    Object.assign(memory.webhooks.get(id)!, { disabledReason: 'failing' });
    expect((await send('GET', `/api/v1/webhooks/${id}`)).json()).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
    });
    const on = await send('PATCH', `/api/v1/webhooks/${id}`, { enabled: true });
    expect(on.json()).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
  });

  it('changes url, events and description, checking each as a create does', async () => {
    await webhooksApi();
    const { id } = (await create(VALID)).json();
    const res = await send('PATCH', `/api/v1/webhooks/${id}`, {
      url: 'https://other.example.com/',
      events: ['link.deleted'],
      description: null,
    });
    expect(res.json()).toMatchObject({
      url: 'https://other.example.com/',
      events: ['link.deleted'],
      description: null,
    });
    for (const [body, code] of [
      [{}, 'empty_change'],
      [{ url: 'https://10.1.2.3/' }, 'webhook_url_private'],
      [{ events: [] }, 'invalid_events'],
      [{ enabled: 'yes' }, 'invalid_body'],
      [{ enable: true }, 'unknown_field'],
    ] as const) {
      const refused = await send('PATCH', `/api/v1/webhooks/${id}`, body);
      expect([refused.statusCode, refused.json().code]).toEqual([400, code]);
    }
  });
});

describe('DELETE /api/v1/webhooks/:id', () => {
  it('answers 204, then 404', async () => {
    await webhooksApi();
    const { id } = (await create(VALID)).json();
    expect((await send('DELETE', `/api/v1/webhooks/${id}`)).statusCode).toBe(204);
    expect((await send('DELETE', `/api/v1/webhooks/${id}`)).statusCode).toBe(404);
    expect((await send('GET', `/api/v1/webhooks/${id}`)).statusCode).toBe(404);
  });
});

describe('POST /api/v1/webhooks/:id/rotate-secret', () => {
  it('gives a new secret; the previous one signs 24 hours more, an older one stops now', async () => {
    const memory = await webhooksApi();
    const { id, secret: first } = (await create(VALID)).json();
    const res = await send('POST', `/api/v1/webhooks/${id}/rotate-secret`);
    expect(res.statusCode).toBe(200);
    const { secret, previousSecretExpiresAt } = res.json();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(first);
    expect(previousSecretExpiresAt).toBe(new Date(NOW.getTime() + 24 * 3_600_000).toISOString());
    await send('POST', `/api/v1/webhooks/${id}/rotate-secret`);
    expect(memory.secrets.map((s) => s.expiresAt?.toISOString() ?? null)).toEqual([
      NOW.toISOString(),
      previousSecretExpiresAt,
      null,
    ]);
    expect(openSealedSecret(KEY, memory.secrets[1]!.sealed)).toBe(secret);
  });
});

describe('POST /api/v1/webhooks/:id/test', () => {
  it('queues one webhook.test message and answers 202', async () => {
    const memory = await webhooksApi();
    const { id } = (await create(VALID)).json();
    const res = await send('POST', `/api/v1/webhooks/${id}/test`);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ messageId: 'msg_test1' });
    expect(memory.deliveries).toEqual([
      {
        webhookId: id,
        messageId: 'msg_test1',
        eventType: 'webhook.test',
        payload: JSON.stringify({ type: 'webhook.test', timestamp: NOW.toISOString(), data: { webhookId: id } }),
      },
    ]);
  });

  it('queues it once for one Idempotency-Key', async () => {
    const memory = await webhooksApi();
    const { id } = (await create(VALID)).json();
    const headers = { 'idempotency-key': 'test-1' };
    const first = await send('POST', `/api/v1/webhooks/${id}/test`, undefined, owner.authorization, headers);
    const again = await send('POST', `/api/v1/webhooks/${id}/test`, undefined, owner.authorization, headers);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(memory.deliveries).toHaveLength(1);
  });

  it('answers 409 for a disabled webhook', async () => {
    const memory = await webhooksApi();
    const { id } = (await create(VALID)).json();
    await send('PATCH', `/api/v1/webhooks/${id}`, { enabled: false });
    const res = await send('POST', `/api/v1/webhooks/${id}/test`);
    expect([res.statusCode, res.json().code]).toEqual([409, 'webhook_disabled']);
    expect(memory.deliveries).toHaveLength(0);
  });
});

describe('GET /api/v1/webhooks/:id/deliveries', () => {
  it('lists the attempts of the last 7 days, newest first, a page at a time', async () => {
    const memory = await webhooksApi();
    const { id } = (await create(VALID)).json();
    const attempt = (n: number, daysAgo: number) => ({
      webhookId: id,
      attemptId: BigInt(n),
      messageId: `evt-${n}`,
      eventType: 'link.created' as const,
      attempt: 1,
      replay: false,
      attemptedAt: new Date(NOW.getTime() - daysAgo * 86_400_000),
      responseStatus: n % 2 ? 200 : null,
      error: n % 2 ? null : 'timeout',
      latencyMs: 12,
    });
    memory.attempts.push(attempt(1, 8), attempt(2, 3), attempt(3, 2), attempt(4, 1));
    const first = (await send('GET', `/api/v1/webhooks/${id}/deliveries?limit=2`)).json();
    expect(first.deliveries.map((d: { messageId: string }) => d.messageId)).toEqual(['evt-4', 'evt-3']);
    first.deliveries.forEach((d: unknown) => deliveryAttemptSchema.parse(d));
    const second = (await send('GET', `/api/v1/webhooks/${id}/deliveries?limit=2&cursor=${first.nextCursor}`)).json();
    expect(second.deliveries.map((d: { messageId: string }) => d.messageId)).toEqual(['evt-2']);
    expect(second.nextCursor).toBeNull();
    expect((await send('GET', `/api/v1/webhooks/${id}/deliveries?cursor=${first.nextCursor}x`)).json().code).toBe(
      'invalid_cursor',
    );
  });
});

describe('POST /api/v1/webhooks/:id/replay', () => {
  it('records the replay and answers 202 with its id; events default to the webhook’s', async () => {
    const memory = await webhooksApi();
    const { id } = (await create(VALID)).json();
    const res = await send('POST', `/api/v1/webhooks/${id}/replay`, { since: '2026-11-21T00:00:00Z' });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({
      webhookId: id,
      since: '2026-11-21T00:00:00.000Z',
      until: null,
      events: VALID.events,
    });
    expect(memory.replays).toEqual([
      expect.objectContaining({
        webhookId: id,
        replayId: res.json().replayId,
        since: new Date('2026-11-21T00:00:00Z'),
        until: null,
      }),
    ]);
  });

  it.each([
    [{}, 'invalid_replay_window', 'since'],
    [{ since: 'yesterday' }, 'invalid_replay_window', 'since'],
    [{ since: '2026-11-21' }, 'invalid_replay_window', 'since'],
    [{ since: '2026-11-21T00:00:00' }, 'invalid_replay_window', 'since'],
    [{ since: 1_700_000_000 }, 'invalid_replay_window', 'since'],
    [{ since: '2026-11-23T00:00:00Z' }, 'invalid_replay_window', 'since'],
    [{ since: '2026-11-21T00:00:00Z', until: '2026-11-20T00:00:00Z' }, 'invalid_replay_window', 'until'],
    [{ since: '2026-11-21T00:00:00Z', until: '2026-11-21T00:00:00Z' }, 'invalid_replay_window', 'until'],
    [{ since: '2026-11-21T00:00:00Z', until: '2026-12-01T00:00:00Z' }, 'invalid_replay_window', 'until'],
    [{ since: '2026-11-21T00:00:00Z', events: ['link.deleted'] }, 'invalid_events', 'events'],
    [{ since: '2026-11-21T00:00:00Z', events: [] }, 'invalid_events', 'events'],
    [{ since: '2026-11-21T00:00:00Z', from: 'x' }, 'unknown_field', 'from'],
  ])('refuses %j', async (body, code, field) => {
    const memory = await webhooksApi();
    const { id } = (await create(VALID)).json();
    const res = await send('POST', `/api/v1/webhooks/${id}/replay`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code, field });
    expect(memory.replays).toHaveLength(0);
  });
});
