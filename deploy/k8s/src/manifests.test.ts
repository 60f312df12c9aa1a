import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '@shortlink/config';
import { SHUTDOWN_GRACE_MS } from '@shortlink/http';
import { analyticsConfig } from '@shortlink/service-analytics';
import { apiDocsConfig } from '@shortlink/service-api-docs';
import { previewWorkerConfig } from '@shortlink/service-preview-worker';
import { projectorConfig } from '@shortlink/service-projector';
import { redirectorConfig } from '@shortlink/service-redirector';
import { webhookDispatcherConfig } from '@shortlink/service-webhook-dispatcher';
import { writeApiConfig } from '@shortlink/service-write-api';
import type { z } from 'zod';
import { manifestProblems } from './strict-validation';

const ROOT = join(__dirname, '..', '..', '..');
const K8S = join(ROOT, 'deploy', 'k8s');
const BASE = join(K8S, 'base');
const OVERLAY = join(K8S, 'overlays', 'production');

/** Every setting each entry point reads: its schema in libs/config and its config.ts. */
const SCHEMAS: Record<string, z.ZodObject> = {
  'write-api': writeApiConfig,
  redirector: redirectorConfig,
  analytics: analyticsConfig,
  projector: projectorConfig,
  'preview-worker': previewWorkerConfig,
  'webhook-dispatcher': webhookDispatcherConfig,
  'api-docs': apiDocsConfig,
};
/** The keys of shortlink-secrets, with stand-ins of the right shape. */
const SECRETS: Record<string, string> = {
  DATABASE_URL: 'postgres://shortlink:secret@postgres:5432/shortlink',
  VISITOR_HASH_SECRET: 'a-secret-of-at-least-16-characters',
  CLICKHOUSE_USER: 'shortlink',
  CLICKHOUSE_PASSWORD: 'secret',
  WEBHOOKS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are read as plain YAML */
type Doc = any;

function parseYaml(text: string, source: string): Doc[] {
  return parseAllDocuments(text).map((doc, i) => {
    // Duplicate keys, bad indentation and the like: YAML errors, not silently last-wins.
    if (doc.errors.length > 0) throw new Error(`${source} #${i}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS();
  });
}

const baseFiles = readdirSync(BASE).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
const base: Doc[] = baseFiles.flatMap((f) => parseYaml(readFileSync(join(BASE, f), 'utf8'), f));
const ofKind = (docs: Doc[], kind: string): Doc[] => docs.filter((d) => d.kind === kind);
const named = (docs: Doc[], kind: string, name: string): Doc =>
  ofKind(docs, kind).find((d) => d.metadata.name === name);
const configMap = named(base, 'ConfigMap', 'shortlink-config');
const deployments = ofKind(base, 'Deployment');
const container = (d: Doc): Doc => d.spec.template.spec.containers[0];
/** The entry point a Deployment runs: a service's `main.js`. */
const ENTRY = /^services\/([a-z-]+)\/dist\/main\.js$/;
const entryOf = (d: Doc): string => ENTRY.exec(container(d).command[1])![1]!;
const sourceOf = (entry: string): string => join(ROOT, 'services', entry, 'src', 'main.ts');

/** `kubectl kustomize` when the machine has kubectl (it ships kustomize); absent, the files alone are checked. */
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
const render = (dir: string): Doc[] => {
  const out = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (out.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${out.stderr}`);
  return parseYaml(out.stdout, dir);
};

describe('the schema check itself', () => {
  const deployment = deployments.find((d) => d.metadata.name === 'redirector');
  const copy = (): Doc => structuredClone(deployment);

  it('passes a manifest of the base', () => {
    expect(manifestProblems(deployment)).toEqual([]);
  });

  it('fails a misspelt field, at any depth', () => {
    const typo = copy();
    container(typo).readinessProbe.httpGet.pth = '/readyz';
    typo.spec.replicsa = 2;
    expect(manifestProblems(typo)).toEqual([
      '/spec/replicsa: unknown field',
      '/spec/template/spec/containers/0/readinessProbe/httpGet/pth: unknown field',
    ]);
  });

  it('fails a value of the wrong type, and a missing required field', () => {
    const wrong = copy();
    wrong.spec.template.spec.terminationGracePeriodSeconds = '20s';
    delete container(wrong).name;
    const problems = manifestProblems(wrong).join('\n');
    expect(problems).toMatch(/terminationGracePeriodSeconds must be integer/);
    expect(problems).toMatch(/containers\/0 must have required property name/);
  });

  it('fails a kind it has no schema for, and a Gateway API field that does not exist', () => {
    expect(manifestProblems({ apiVersion: 'v1', kind: 'Pdo', metadata: { name: 'x' } })).toEqual([
      'no schema for v1 Pdo',
    ]);
    const route = structuredClone(named(base, 'HTTPRoute', 'shortlink'));
    route.spec.rules[0].matches[1].methods = 'GET';
    expect(manifestProblems(route)).toEqual(['/spec/rules/0/matches/1/methods: unknown field']);
  });
});

describe('the Kubernetes manifests (deploy/k8s)', () => {
  it.each(baseFiles)('base/%s matches the Kubernetes and Gateway API schemas', (file) => {
    for (const doc of parseYaml(readFileSync(join(BASE, file), 'utf8'), file)) {
      expect({ name: `${doc.kind}/${doc.metadata?.name}`, problems: manifestProblems(doc) }).toEqual({
        name: `${doc.kind}/${doc.metadata?.name}`,
        problems: [],
      });
    }
  });

  (kubectl ? it : it.skip)(
    'the production overlay builds with kustomize, and what it builds matches the schemas',
    () => {
      const docs = render(OVERLAY);
      expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual(
        [...base.map((d) => `${d.kind}/${d.metadata.name}`), 'Namespace/shortlink'].sort(),
      );
      for (const doc of docs) expect([doc.kind, manifestProblems(doc)]).toEqual([doc.kind, []]);
      for (const doc of docs.filter((d) => d.kind !== 'Namespace')) expect(doc.metadata.namespace).toBe('shortlink');
      for (const d of ofKind(docs, 'Deployment')) {
        expect(container(d).image).toBe('registry.example.com/shortlink:1.0.0');
        expect(d.spec.selector.matchLabels['app.kubernetes.io/name']).toBe('shortlink');
      }
      expect(named(docs, 'ConfigMap', 'shortlink-config').data.PUBLIC_BASE_URL).toBe('https://sho.rt.example');
    },
  );

  it('runs each process of the fleet: two HTTP APIs, the read API, both projections apart, the preview worker, the webhook dispatcher, the API document', () => {
    expect(Object.fromEntries(deployments.map((d) => [d.metadata.name, entryOf(d)]))).toEqual({
      'write-api': 'write-api',
      redirector: 'redirector',
      analytics: 'analytics',
      'link-projector': 'projector',
      'click-projector': 'projector',
      'preview-worker': 'preview-worker',
      'webhook-dispatcher': 'webhook-dispatcher',
      'api-docs': 'api-docs',
    });
    const projections = (name: string) =>
      container(named(base, 'Deployment', name)).env.find((e: Doc) => e.name === 'PROJECTIONS').value;
    expect(projections('link-projector')).toBe('links');
    expect(projections('click-projector')).toBe('clicks');
    for (const d of deployments) {
      expect(existsSync(sourceOf(entryOf(d)))).toBe(true);
      // The image of deploy/docker/Dockerfile, named by the overlay through kustomize's `images`.
      expect(container(d).image).toBe('shortlink');
    }
    expect(existsSync(join(ROOT, 'deploy', 'docker', 'Dockerfile'))).toBe(true);
  });

  it.each(deployments.map((d) => [d.metadata.name as string, d]))(
    '%s is given every setting its entry point reads, each of which parses',
    (_name, d: Doc) => {
      const schema = SCHEMAS[entryOf(d)]!;
      const c = container(d);
      expect(c.envFrom).toEqual([{ configMapRef: { name: 'shortlink-config' } }]);
      const env: Record<string, string> = { ...configMap.data };
      for (const e of c.env ?? []) {
        // A setting named here that the service does not read is a typo.
        expect(Object.keys(schema.shape)).toContain(e.name);
        if (e.valueFrom) {
          expect(e.valueFrom.secretKeyRef.name).toBe('shortlink-secrets');
          env[e.name] = SECRETS[e.valueFrom.secretKeyRef.key]!;
        } else env[e.name] = e.value;
      }
      const missing = Object.keys(schema.shape).filter((key) => !(key in env));
      expect(missing).toEqual([]);
      expect(() => loadConfig(schema, env)).not.toThrow();
    },
  );

  it('holds every setting in the ConfigMap or shortlink-secrets, and nothing else there', () => {
    // Set on the one Deployment it differs for (the two projector Deployments).
    const perDeployment = ['PROJECTIONS'];
    const read = new Set(Object.values(SCHEMAS).flatMap((s) => Object.keys(s.shape)));
    for (const key of perDeployment) read.delete(key);
    expect(Object.keys(configMap.data).filter((k) => !read.has(k))).toEqual([]);
    expect(Object.keys(SECRETS).filter((k) => !read.has(k))).toEqual([]);
    expect([...read].filter((k) => !(k in configMap.data) && !(k in SECRETS))).toEqual([]);
    expect(Object.keys(configMap.data).filter((k) => k in SECRETS)).toEqual([]);
  });

  it.each(deployments.map((d) => [d.metadata.name as string, d]))(
    '%s has probes, requests and limits, and outlives its own shutdown',
    (_name, d: Doc) => {
      const c = container(d);
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(c.ports).toEqual([{ name: 'http', containerPort: Number(configMap.data.PORT) }]);
      for (const kind of ['requests', 'limits'])
        expect(Object.keys(c.resources[kind]).sort()).toEqual(['cpu', 'memory']);
      // On SIGTERM the process drains SHUTDOWN_DRAIN_MS, then has SHUTDOWN_GRACE_MS to finish: killed
      // before that, in-flight requests and a click batch between insert and commit would be cut off.
      const shutdownMs = Number(configMap.data.SHUTDOWN_DRAIN_MS) + SHUTDOWN_GRACE_MS;
      expect(d.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(shutdownMs);
      // Endpoints are dropped while the pod drains: long enough for the gateway to see it.
      expect(Number(configMap.data.SHUTDOWN_DRAIN_MS)).toBeGreaterThanOrEqual(
        c.readinessProbe.periodSeconds * 1000 * 2,
      );
    },
  );

  it('scales the redirector and the write API on CPU, and leaves their replica count to the autoscaler', () => {
    const hpas = ofKind(base, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['redirector', 'write-api']);
    for (const h of hpas) {
      const target = named(base, 'Deployment', h.spec.scaleTargetRef.name);
      expect(target.spec.replicas).toBeUndefined();
      expect(h.spec.minReplicas).toBeGreaterThanOrEqual(2);
    }
  });

  it('keeps one pod of each replicated deployment up through voluntary disruptions', () => {
    const replicated = deployments.filter((d) => d.spec.replicas === undefined || d.spec.replicas > 1);
    const pdbs = ofKind(base, 'PodDisruptionBudget');
    expect(pdbs.map((p) => p.metadata.name).sort()).toEqual(replicated.map((d) => d.metadata.name).sort());
    for (const p of pdbs) {
      expect(p.spec.maxUnavailable).toBe(1);
      expect(named(base, 'Deployment', p.metadata.name).spec.template.metadata.labels).toMatchObject(
        p.spec.selector.matchLabels,
      );
    }
  });

  it('gives each HTTP API a Service that selects its pods, and routes only to those', () => {
    const services = ofKind(base, 'Service');
    expect(services.map((s) => s.metadata.name).sort()).toEqual(['analytics', 'api-docs', 'redirector', 'write-api']);
    for (const s of services) {
      expect(named(base, 'Deployment', s.metadata.name).spec.template.metadata.labels).toMatchObject(s.spec.selector);
      expect(s.spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http' }]);
    }
    const route = named(base, 'HTTPRoute', 'shortlink');
    for (const ref of route.spec.rules.flatMap((r: Doc) => r.backendRefs)) {
      expect(services.map((s) => `${s.metadata.name}:80`)).toContain(`${ref.name}:${ref.port}`);
    }
    expect(route.spec.parentRefs).toEqual([{ name: named(base, 'Gateway', 'shortlink').metadata.name }]);
  });

  describe('routes as the local entry point does (deploy/fleet/haproxy.cfg.template)', () => {
    const route = named(base, 'HTTPRoute', 'shortlink');
    const RANK = { Exact: 0, RegularExpression: 1, PathPrefix: 2 } as const;
    type PathType = keyof typeof RANK;
    /** The HTTPRoute as a controller ordering Exact > RegularExpression > PathPrefix (longest first), then method, applies it. */
    const matches = route.spec.rules
      .flatMap((rule: Doc) =>
        rule.matches.map((m: Doc) => ({ ...m.path, method: m.method, backend: rule.backendRefs[0].name })),
      )
      .sort(
        (a: Doc, b: Doc) =>
          RANK[a.type as PathType] - RANK[b.type as PathType] ||
          b.value.length - a.value.length ||
          Number(b.method !== undefined) - Number(a.method !== undefined),
      );
    const gateway = (method: string, path: string): string =>
      matches.find(
        (m: Doc) =>
          (m.method === undefined || m.method === method) &&
          (m.type === 'Exact'
            ? path === m.value
            : m.type === 'RegularExpression'
              ? new RegExp(`^(?:${m.value})$`).test(path)
              : path.startsWith(m.value)),
      ).backend;

    /** The template's ACLs, read from it. */
    const template = readFileSync(join(ROOT, 'deploy', 'fleet', 'haproxy.cfg.template'), 'utf8');
    const acl = (name: string) => new RegExp(new RegExp(`acl ${name} path_reg (\\S+)`).exec(template)![1]!);
    const apiDocs = (path: string): boolean => {
      const exact = /acl api_docs path (.+)/.exec(template)![1]!.split(' ');
      const prefix = /acl api_docs path_beg (\S+)/.exec(template)![1]!;
      return exact.includes(path) || path.startsWith(prefix);
    };
    const dashboard = (path: string): boolean =>
      (/acl dashboard path (.+)/.exec(template)![1]!.split(' ').includes(path) ||
        path.startsWith(/acl dashboard path_beg (\S+)/.exec(template)![1]!)) &&
      template.includes('use_backend analytics if dashboard');
    const clicks = (path: string): boolean =>
      acl('clicks').test(path) && template.includes('use_backend analytics if clicks');
    const haproxy = (method: string, path: string): string => {
      if (apiDocs(path)) return 'api-docs';
      if (acl('analytics').test(path)) return 'analytics';
      if (dashboard(path)) return 'analytics';
      if (clicks(path)) return 'analytics';
      if (acl('link_read').test(path) && ['GET', 'HEAD'].includes(method)) return 'analytics';
      if (path.startsWith('/api/')) return 'write-api';
      return 'redirector';
    };
    expect(template).toContain('acl read method GET HEAD');
    expect(template).toContain('acl api path_beg /api/');

    const methods = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS'];
    const paths = [
      '/',
      '/abc123',
      '/abc123/more',
      '/api',
      '/api/',
      '/api/v1/links',
      '/api/v1/links/',
      '/api/v1/links/abc123',
      '/api/v1/links/abc123/',
      '/api/v1/links/abc123/analytics',
      '/api/v1/links/abc123/analytics/x',
      '/api/v1/links/abc123/qr',
      '/api/v1/links/abc123/qrx',
      '/api/v1/clicks/export',
      '/api/v1/clicks',
      '/api/v1/clicksx/export',
      '/dashboard',
      '/dashboard/main.js',
      '/dashboardx',
      '/api/v1/links/abc123/other',
      '/api/v1/links/bulk',
      '/api/v1/linksx',
      '/api/v1/accounts/me',
      '/healthz',
      '/favicon.ico',
      '/openapi.json',
      '/docs',
      '/docs/',
      '/docs/static/index.css',
      '/docsx',
      '/api/docs',
    ];
    it.each(methods.flatMap((m) => paths.map((p) => [m, p])))('%s %s', (method, path) => {
      expect(gateway(method, path)).toBe(haproxy(method, path));
    });

    it("sends a link's QR code and the dashboard to the read API, and no look-alike path", () => {
      for (const path of ['/api/v1/links/abc123/qr', '/dashboard', '/dashboard/main.js']) {
        expect([path, haproxy('GET', path), gateway('GET', path)]).toEqual([path, 'analytics', 'analytics']);
      }
      expect(haproxy('GET', '/dashboardx')).toBe('redirector');
      expect(haproxy('GET', '/api/v1/links/abc123/qrx')).toBe('write-api');
    });

    it('sends the click export to the read API, and no look-alike path', () => {
      for (const method of ['GET', 'HEAD', 'POST']) {
        expect([haproxy(method, '/api/v1/clicks/export'), gateway(method, '/api/v1/clicks/export')]).toEqual([
          'analytics',
          'analytics',
        ]);
      }
      expect(haproxy('GET', '/api/v1/clicksx/export')).toBe('write-api');
    });
  });
});
