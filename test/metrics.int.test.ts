import { join } from 'node:path';
import { eventually } from '@shortlink/testing';
import { documentedMetricNames, readExposition, type Exposition } from './support/exposition';
import { issueKey, openTestInfra, startServersProcess, type TestInfra } from './support/link-system';
import type { RunningProcess } from './support/processes';

/**
 * `npm start` on Kafka, Postgres and ClickHouse, as a process, scraped over
 * real HTTP after some traffic: one registry serving every service.
 */
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
let infra: TestInfra;
let app: RunningProcess;
let key: string;

beforeAll(async () => {
  infra = await openTestInfra();
  key = await issueKey(infra.pool, 'pro');
  app = await startServersProcess(infra);
}, 90_000);

afterAll(async () => {
  expect(await app?.stop()).toBe(0);
  await infra?.close();
});

const scrape = async (): Promise<{ contentType: string | null; exposition: Exposition }> => {
  const res = await fetch(`${app.url}/metrics`);
  expect(res.status).toBe(200);
  return { contentType: res.headers.get('content-type'), exposition: readExposition(await res.text()) };
};

const valueOf = (exposition: Exposition, name: string, labels: Record<string, string> = {}) =>
  exposition.series.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe('GET /metrics of the all-in-one process', () => {
  it('after traffic: valid exposition, every documented metric, requests by route, clicks, and lag once consumed', async () => {
    // Given a link created and redirected three times, and a path nothing serves
    const slug = `metrics-${Date.now().toString(36)}`;
    const created = await fetch(`${app.url}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/metrics', customSlug: slug }),
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${app.url}/${slug}`, { redirect: 'manual', headers: { 'user-agent': CHROME } });
      expect(res.status).toBe(302);
    }
    expect((await fetch(`${app.url}/no/such/path`)).status).toBe(404);

    // When the process is scraped once the projector has consumed the link
    const linkGroup = infra.names.groups.linkProjector;
    const { contentType, exposition } = await eventually(async () => {
      const scraped = await scrape();
      const lag = valueOf(scraped.exposition, 'shortlink_consumer_lag', { group: linkGroup });
      return lag === 0 ? scraped : undefined;
    }, 30_000);

    // Then it is valid Prometheus text with every documented metric and Node's process metrics
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const documented = documentedMetricNames(join(__dirname, '..'));
    expect(documented.length).toBeGreaterThanOrEqual(18);
    expect(documented.filter((name) => !exposition.types.has(name))).toEqual([]);
    expect(exposition.types.get('shortlink_process_cpu_seconds_total')).toBe('counter');
    expect(exposition.families.find((f) => f.name === 'shortlink_consumer_lag')?.type).toBe('GAUGE');
    // Conventions: our counters end in _total, our durations are in seconds
    for (const [name, type] of exposition.types) {
      expect(name.startsWith('shortlink_')).toBe(true);
      if (type === 'counter') expect(name).toMatch(/_total$/);
      if (name.includes('duration')) expect(name).toMatch(/_seconds$/);
    }
    // Requests by route pattern and status, never by raw path
    expect(
      valueOf(exposition, 'shortlink_http_request_duration_seconds_count', { route: '/:slug', status: '302' }),
    ).toBe(3);
    expect(
      valueOf(exposition, 'shortlink_http_request_duration_seconds_count', { route: '/api/v1/links', status: '201' }),
    ).toBe(1);
    expect(
      valueOf(exposition, 'shortlink_http_request_duration_seconds_count', { route: 'unmatched', status: '404' }),
    ).toBe(1);
    expect(exposition.series.some((s) => Object.values(s.labels).some((v) => v.includes(slug)))).toBe(false);
    // The link projector consumed the LinkCreated, and says so
    expect(
      valueOf(exposition, 'shortlink_consumer_messages_total', {
        group: linkGroup,
        topic: infra.names.topics.links,
        outcome: 'ok',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(valueOf(exposition, 'shortlink_projector_rows_total', { projection: 'links' })).toBeGreaterThanOrEqual(1);
    // The redirects were counted as clicks and cache lookups
    expect(valueOf(exposition, 'shortlink_clicks_queued_total')).toBe(3);
    expect(valueOf(exposition, 'shortlink_link_cache_misses_total')).toBeGreaterThanOrEqual(1);
    expect(valueOf(exposition, 'shortlink_link_cache_hits_total')).toBeGreaterThanOrEqual(1);
    expect(valueOf(exposition, 'shortlink_link_cache_entries')).toBeGreaterThanOrEqual(1);

    // And once the clicks are projected, the click projector's lag and batch are there too
    const clicks = await eventually(async () => {
      const { exposition: e } = await scrape();
      const rows = valueOf(e, 'shortlink_projector_rows_total', { projection: 'clicks' }) ?? 0;
      return rows >= 3 ? e : undefined;
    }, 30_000);
    expect(
      valueOf(clicks, 'shortlink_consumer_lag', {
        group: infra.names.groups.clickProjector,
        topic: infra.names.topics.clicks,
      }),
    ).toBe(0);
    expect(valueOf(clicks, 'shortlink_projector_batch_size_count', { projection: 'clicks' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(clicks, 'shortlink_clicks_sent_total')).toBe(3);
    // The clicks' freshness: observed per insert, each within the minute this test took
    expect(valueOf(clicks, 'shortlink_click_freshness_seconds_count')).toBeGreaterThanOrEqual(1);
    const freshness = valueOf(clicks, 'shortlink_click_freshness_seconds_sum')!;
    expect(freshness).toBeGreaterThan(0);
    expect(freshness).toBeLessThan(60 * valueOf(clicks, 'shortlink_click_freshness_seconds_count')!);

    // A change waits for the process's own redirector, which holds its lease and confirms it
    const changed = await fetch(`${app.url}/api/v1/links/${slug}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tag: 'scraped' }),
    });
    expect(changed.status).toBe(200);
    const { exposition: afterChange } = await scrape();
    expect(valueOf(afterChange, 'shortlink_link_cache_trusted')).toBe(1);
    expect(valueOf(afterChange, 'shortlink_link_change_redirector_wait_seconds_count', { outcome: 'confirmed' })).toBe(
      1,
    );
    expect(afterChange.series.filter((s) => /redirector_wait_seconds_count|trust_lost/.test(s.name))).toEqual([
      expect.objectContaining({ labels: expect.objectContaining({ outcome: 'confirmed' }) }),
    ]);
  }, 90_000);

  it('answers /readyz 200 with every dependency of every service up, /healthz as before', async () => {
    const res = await fetch(`${app.url}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      dependencies: { module: string; name: string; state: string }[];
    };
    expect(body.status).toBe('ready');
    expect(body.dependencies.filter((d) => d.state !== 'up')).toEqual([]);
    expect(new Set(body.dependencies.map((d) => `${d.module}:${d.name}`))).toEqual(
      new Set([
        'projector:kafka',
        'projector:postgres',
        'projector:clickhouse',
        'preview-worker:kafka',
        'webhook-dispatcher:kafka',
        'webhook-dispatcher:postgres',
        'write-api:postgres',
        'write-api:kafka',
        'analytics:postgres',
        'analytics:clickhouse',
        'redirector:postgres',
      ]),
    );
    // And the same in /metrics, with each dependency up
    const { exposition } = await scrape();
    expect(valueOf(exposition, 'shortlink_ready')).toBe(1);
    expect(
      exposition.series.filter((s) => s.name === 'shortlink_dependency_up').map((s) => [s.labels, s.value]),
    ).toHaveLength(body.dependencies.length);
    expect(valueOf(exposition, 'shortlink_dependency_up', { module: 'projector', dependency: 'clickhouse' })).toBe(1);
    const health = await fetch(`${app.url}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok', service: 'shortlink' }]);
  });
});
