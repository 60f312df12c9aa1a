import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';

export const OBSERVABILITY = join(__dirname, '..');
const ROOT = join(OBSERVABILITY, '..', '..');
export const RULES_FILE = join(OBSERVABILITY, 'rules', 'shortlink-alerts.yml');
export const RULES_TEST_FILE = join(OBSERVABILITY, 'rules', 'shortlink-alerts.test.yml');
export const DASHBOARD_FILE = join(OBSERVABILITY, 'grafana', 'shortlink.json');

/** A PromQL expression checked in, and where it is. */
export interface Query {
  source: string;
  expr: string;
}

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function alertRules(): AlertRule[] {
  const doc = parseYaml(readFileSync(RULES_FILE, 'utf8')) as { groups: { name: string; rules: AlertRule[] }[] };
  return doc.groups.flatMap((g) => g.rules);
}

/** The parts of a Grafana dashboard the checks read. */
export interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query?: { query: string } }[] };
}

export interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: { refId: string; expr: string }[];
}

export function dashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
}

/**
 * Grafana's variables replaced as Grafana would before sending a query:
 * `$__rate_interval` by a range, a multi-value variable (`$service`, with
 * "All" as `.*`) by its all-value.
 */
export function withVariables(expr: string): string {
  return expr.replace(/\$__(rate_interval|interval|range)\b/g, '1m').replace(/\$\{(\w+)\}|\$(\w+)/g, () => '.*');
}

/** Every expression of the alert rules and of the dashboard (panels' targets and variables' queries). */
export function checkedInQueries(): Query[] {
  const rules = alertRules().map((r) => ({ source: `alert ${r.alert}`, expr: r.expr }));
  const board = dashboard();
  const panels: Query[] = board.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({
      source: `panel ${p.id} "${p.title}" ${t.refId}`,
      expr: withVariables(t.expr),
    })),
  );
  // `label_values(selector, label)`: the selector is a query of its own.
  const variables: Query[] = board.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => {
      const query = v.query?.query ?? '';
      const selector = /^label_values\((.+),\s*\w+\)$/.exec(query)?.[1];
      if (!selector) throw new Error(`variable ${v.name}: not label_values(selector, label): ${query}`);
      return { source: `variable ${v.name}`, expr: withVariables(selector) };
    });
  return [...rules, ...panels, ...variables];
}

/** A metric an expression selects, with the label names its matchers use. */
export interface Selector {
  metric: string;
  labels: string[];
}

/**
 * Parses PromQL with the Prometheus project's own grammar (the one its UI
 * uses) and returns every vector selector, or the syntax errors. A selector
 * by `__name__` is refused: the name check could not see it.
 */
export function selectorsOf(expr: string): { selectors: Selector[]; errors: string[] } {
  const tree = parser.parse(expr);
  const selectors: Selector[] = [];
  const errors: string[] = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError)
      errors.push(`syntax error at ${cursor.from}: ${expr.slice(cursor.from, cursor.from + 30)}`);
    if (cursor.name === 'VectorSelector') {
      const node = cursor.node;
      const name = node.getChild('Identifier');
      const labels = node
        .getChild('LabelMatchers')
        ?.getChildren('UnquotedLabelMatcher')
        .map((m) => m.getChild('LabelName'))
        .map((l) => (l ? expr.slice(l.from, l.to) : '?'));
      if (!name) errors.push(`a selector without a metric name: ${expr.slice(node.from, node.to)}`);
      else selectors.push({ metric: expr.slice(name.from, name.to), labels: labels ?? [] });
      if (node.getChild('LabelMatchers')?.getChild('QuotedLabelMatcher')) errors.push('a quoted label matcher');
    }
  } while (cursor.next());
  return { selectors, errors };
}

/** A metric family as docs/metrics.md documents it. */
export interface DocumentedMetric {
  name: string;
  type: string;
  labels: string[];
}

export function documentedMetrics(): DocumentedMetric[] {
  const readme = readFileSync(join(ROOT, 'docs', 'metrics.md'), 'utf8');
  return [...readme.matchAll(/^\| `(shortlink_[a-z_]+)` *\| *(\w+) *\|([^|]*)\|/gm)].map((m) => ({
    name: m[1]!,
    type: m[2]!,
    labels: [...m[3]!.matchAll(/`(\w+)`/g)].map((l) => l[1]!),
  }));
}

/** The names a family's samples have: a histogram's `_bucket`, `_sum` and `_count`. */
export function sampleNames(name: string, type: string): string[] {
  if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
  return [name];
}

/** The labels every scraped series carries: Prometheus's `job` and `instance`, and the scrape configs' `service`. */
export const TARGET_LABELS = ['job', 'instance', 'service'];
