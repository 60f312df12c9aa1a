import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { INSTANCES } from '@shortlink/fleet';
import { createMetricsRegistry } from '@shortlink/metrics';
import {
  alertRules,
  checkedInQueries,
  dashboard,
  documentedMetrics,
  OBSERVABILITY,
  sampleNames,
  selectorsOf,
  TARGET_LABELS,
  withVariables,
} from './observability-queries';

/** Every sample name a process exposes, with the labels its matchers may use: docs/metrics.md and prom-client's defaults. */
async function knownSeries(): Promise<Map<string, Set<string>>> {
  const known = new Map<string, Set<string>>();
  for (const m of documentedMetrics()) {
    for (const name of sampleNames(m.name, m.type)) {
      known.set(name, new Set([...TARGET_LABELS, ...m.labels, ...(name.endsWith('_bucket') ? ['le'] : [])]));
    }
  }
  const registry = createMetricsRegistry();
  for (const m of await registry.getMetricsAsJSON()) {
    const labels = new Set([...TARGET_LABELS, ...m.values.flatMap((v) => Object.keys(v.labels))]);
    for (const name of sampleNames(m.name, String(m.type))) known.set(name, labels);
  }
  registry.clear();
  // Prometheus's own series of each target.
  known.set('up', new Set(TARGET_LABELS));
  return known;
}

describe('the PromQL of the alert rules and the dashboard', () => {
  const queries = checkedInQueries();

  it('covers every alert, panel target and variable', () => {
    expect(queries.filter((q) => q.source.startsWith('alert')).length).toBe(alertRules().length);
    expect(queries.filter((q) => q.source.startsWith('panel')).length).toBeGreaterThanOrEqual(25);
    expect(queries.filter((q) => q.source.startsWith('variable')).length).toBe(2);
  });

  it('parses, and selects only metrics a process exposes (docs/metrics.md, prom-client defaults, up), by labels they have', async () => {
    const known = await knownSeries();
    expect(known.has('shortlink_process_cpu_seconds_total')).toBe(true);
    expect(known.has('shortlink_nodejs_eventloop_lag_p99_seconds')).toBe(true);
    const problems = queries.flatMap(({ source, expr }) => {
      const { selectors, errors } = selectorsOf(expr);
      return [
        ...errors.map((e) => `${source}: ${e}`),
        ...selectors.flatMap(({ metric, labels }) => {
          const allowed = known.get(metric);
          if (!allowed) return [`${source}: unknown metric ${metric}`];
          return labels.filter((l) => !allowed.has(l)).map((l) => `${source}: ${metric} has no label ${l}`);
        }),
      ];
    });
    expect(problems).toEqual([]);
  });

  it('the checks see what they check: a wrong name, a wrong label and bad syntax are reported', () => {
    expect(selectorsOf('sum(rate(shortlink_http_requests_total{route="/:slug"}[5m]))').selectors).toEqual([
      { metric: 'shortlink_http_requests_total', labels: ['route'] },
    ]);
    expect(selectorsOf('rate(up[5m]').errors).not.toEqual([]);
    expect(selectorsOf('{__name__="up"}').errors).not.toEqual([]);
    expect(withVariables('rate(x{service=~"$service", instance=~"${instance}"}[$__rate_interval])')).toBe(
      'rate(x{service=~".*", instance=~".*"}[1m])',
    );
  });
});

describe('the alert rules', () => {
  it('each has a for, a severity of critical or warning, a summary and a runbook', () => {
    for (const rule of alertRules()) {
      expect([rule.alert, rule.for]).toEqual([rule.alert, expect.stringMatching(/^\d+[smh]$/)]);
      expect([rule.alert, rule.labels?.severity]).toEqual([rule.alert, expect.stringMatching(/^(critical|warning)$/)]);
      expect(Object.keys(rule.annotations ?? {}).sort()).toEqual(['runbook', 'summary']);
    }
  });

  it('cover what on-call needs: targets, readiness, 5xx, click drops, freshness, lag, dead letters', () => {
    const exprs = alertRules().map((r) => r.expr);
    for (const needed of [
      /\bup\{/,
      /shortlink_ready\b/,
      /status=~"5\.\."/,
      /shortlink_clicks_dropped_total/,
      /shortlink_click_freshness_seconds_bucket/,
      /shortlink_consumer_lag/,
      /shortlink_dead_letters_total/,
    ]) {
      expect([needed, exprs.some((e) => needed.test(e))]).toEqual([needed, true]);
    }
  });
});

describe('the Grafana dashboard', () => {
  const board = dashboard();
  const panels = board.panels;

  it('is a dashboard with unique integer panel ids, every panel placed and on the chosen data source', () => {
    expect(board).toMatchObject({ uid: 'shortlink', title: expect.any(String), schemaVersion: expect.any(Number) });
    const ids = panels.map((p) => p.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels) {
      expect(p.gridPos).toEqual({
        h: expect.any(Number),
        w: expect.any(Number),
        x: expect.any(Number),
        y: expect.any(Number),
      });
      expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
      if (p.type === 'row') continue;
      const targets = p.targets ?? [];
      expect([p.title, targets.length > 0]).toEqual([p.title, true]);
      expect(p.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      const refIds = targets.map((t) => t.refId);
      expect(new Set(refIds).size).toBe(refIds.length);
    }
  });

  it('has the panels on-call opens first', () => {
    const titles = panels.map((p) => p.title);
    for (const title of [
      'Request rate by route',
      'p99 latency by route',
      '5xx rate',
      'Redirect rate by status',
      'Click queue depth',
      'Clicks queued, sent, dropped',
      'Consumer lag by group',
      'Projector batch size',
      'Projector insert duration',
      'Preview outcomes',
      'Link cache hit ratio',
      'CPU',
      'Memory',
      'Event-loop lag',
    ]) {
      expect(titles).toContain(title);
    }
  });
});

describe('the scrape configurations', () => {
  it("the fleet's lists every process of deploy/fleet, on its port, as its service", () => {
    const config = parseYaml(readFileSync(join(OBSERVABILITY, 'prometheus', 'fleet.yml'), 'utf8'));
    const [job] = config.scrape_configs;
    expect(config.scrape_configs).toHaveLength(1);
    expect(job.job_name).toBe('shortlink');
    const scraped = (job.static_configs as { targets: string[]; labels: { service: string } }[])
      .flatMap((s) => s.targets.map((t) => `${s.labels.service} ${t}`))
      .sort();
    const serviceOf = (i: (typeof INSTANCES)[number]) =>
      i.service === 'projector' ? `${i.env?.PROJECTIONS === 'links' ? 'link' : 'click'}-projector` : i.service;
    expect(scraped).toEqual(INSTANCES.map((i) => `${serviceOf(i)} 127.0.0.1:${i.port}`).sort());
  });

  it("Kubernetes': every Deployment's pods carry what its relabelling keeps (annotations, an `http` port, a component)", () => {
    const base = join(OBSERVABILITY, '..', 'k8s', 'base');
    const kustomization = parseYaml(readFileSync(join(base, 'kustomization.yaml'), 'utf8'));
    expect(kustomization.labels).toContainEqual(
      expect.objectContaining({
        pairs: expect.objectContaining({ 'app.kubernetes.io/part-of': 'shortlink' }),
        includeSelectors: true,
      }),
    );
    const deployments = readdirSync(base)
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => parseAllDocuments(readFileSync(join(base, f), 'utf8')).map((d) => d.toJS()))
      .filter((d) => d?.kind === 'Deployment');
    expect(deployments.length).toBe(8);
    const config = readFileSync(join(OBSERVABILITY, 'prometheus', 'kubernetes.yml'), 'utf8');
    expect(config).toContain('names: [shortlink]');
    for (const d of deployments) {
      const { annotations, labels } = d.spec.template.metadata;
      const port = d.spec.template.spec.containers[0].ports.find((p: { name: string }) => p.name === 'http');
      expect([d.metadata.name, annotations]).toEqual([
        d.metadata.name,
        {
          'prometheus.io/scrape': 'true',
          'prometheus.io/port': String(port?.containerPort),
          'prometheus.io/path': '/metrics',
        },
      ]);
      expect(labels['app.kubernetes.io/component']).toBe(d.metadata.name);
    }
  });
});
