import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { eventually } from '@shortlink/testing';
import {
  alertRules,
  checkedInQueries,
  OBSERVABILITY,
  RULES_FILE,
} from '../deploy/observability/src/observability-queries';
import { issueKey, openTestInfra, startServersProcess, type TestInfra } from './support/link-system';
import { freePort, type RunningProcess } from './support/processes';

/**
 * Debian's Prometheus scraping `npm start`'s process with the checked-in
 * configuration for it (deploy/observability/prometheus/standalone.yml, made
 * to scrape every second), loading the alert rules: the target comes up, it
 * evaluates every rule without error, and every alert and dashboard
 * expression is a query it answers (an empty answer is fine: no 5xx here).
 */
let infra: TestInfra;
let app: RunningProcess;
let prometheus: ChildProcess;
let prometheusUrl: string;
let prometheusLog = '';
let dir: string;

interface ApiAnswer<T> {
  status: 'success' | 'error';
  data: T;
  error?: string;
}

const api = async <T>(path: string): Promise<ApiAnswer<T>> => {
  const res = await fetch(`${prometheusUrl}${path}`, { signal: AbortSignal.timeout(5000) });
  return (await res.json()) as ApiAnswer<T>;
};

beforeAll(async () => {
  infra = await openTestInfra();
  app = await startServersProcess(infra);
  dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  const config = parseYaml(readFileSync(join(OBSERVABILITY, 'prometheus', 'standalone.yml'), 'utf8'));
  config.global = { scrape_interval: '1s', evaluation_interval: '1s' };
  config.rule_files = [RULES_FILE];
  config.scrape_configs[0].static_configs[0].targets = [new URL(app.url).host];
  writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prometheus.stdout?.on('data', (d: Buffer) => (prometheusLog += d.toString()));
  prometheus.stderr?.on('data', (d: Buffer) => (prometheusLog += d.toString()));
  const spawned = await new Promise<Error | undefined>((resolve) => {
    prometheus.once('spawn', () => resolve(undefined));
    prometheus.once('error', resolve);
  });
  if (spawned) throw new Error(`prometheus is missing (apt-get install prometheus): ${spawned.message}`);
}, 90_000);

afterAll(async () => {
  if (prometheus?.exitCode === null) {
    const exited = new Promise((resolve) => prometheus.once('exit', resolve));
    prometheus.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  expect(await app?.stop()).toBe(0);
  await infra?.close();
});

describe('Prometheus on the all-in-one process', () => {
  it('scrapes it, evaluates every alert rule, and answers every alert and dashboard expression', async () => {
    // Given some traffic: a link created and followed
    const key = await issueKey(infra.pool, 'pro');
    const slug = `prom-${Date.now().toString(36)}`;
    const created = await fetch(`${app.url}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/prometheus', customSlug: slug }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${app.url}/${slug}`, { redirect: 'manual' })).status).toBe(302);

    // When Prometheus has scraped the process, with the labels the rules and the dashboard select on
    const target = await eventually(
      async () => {
        const { data } = await api<{ activeTargets: { health: string; labels: Record<string, string> }[] }>(
          '/api/v1/targets',
        );
        return data.activeTargets.find((t) => t.health === 'up');
      },
      30_000,
      'Prometheus to scrape the process',
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${prometheusLog}`);
    });
    expect(target.labels).toMatchObject({ job: 'shortlink', service: 'all-in-one' });

    // Then it has evaluated every alert rule, without error
    const rules = await eventually(async () => {
      const { data } = await api<{ groups: { rules: { name: string; health: string; lastError?: string }[] }[] }>(
        '/api/v1/rules?type=alert',
      );
      const all = data.groups.flatMap((g) => g.rules);
      return all.length > 0 && all.every((r) => r.health !== 'unknown') ? all : undefined;
    }, 15_000);
    expect(rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
    expect(rules.map((r) => r.name).sort()).toEqual(
      alertRules()
        .map((r) => r.alert)
        .sort(),
    );

    // And the process is up and ready as Prometheus sees it
    const value = async (query: string) =>
      (await api<{ result: { value: [number, string] }[] }>(`/api/v1/query?query=${encodeURIComponent(query)}`)).data
        .result[0]?.value[1];
    expect(await value('up{job="shortlink"}')).toBe('1');
    expect(await eventually(async () => value('shortlink_ready'), 10_000)).toBe('1');

    // And every expression of the rules and the dashboard is a query it answers
    const queries = checkedInQueries();
    expect(queries.length).toBeGreaterThan(35);
    const failed: string[] = [];
    for (const { source, expr } of queries) {
      const answer = await api<unknown>(`/api/v1/query?query=${encodeURIComponent(expr)}`);
      if (answer.status !== 'success') failed.push(`${source}: ${answer.error}`);
    }
    expect(failed).toEqual([]);
  }, 60_000);
});
