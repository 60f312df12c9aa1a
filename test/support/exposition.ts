import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
// Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case:
// prom-client writes `Nan` for a gauge with no sample yet (the event-loop lag right after start).
const VALUE = /^(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|[-+]?inf(?:inity)?)$/i;
const SAMPLE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? (\S+)(?: -?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/g;
const SUFFIXES: Record<string, string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name to type. */
  types: Map<string, string>;
  series: Series[];
  /** The same text as parse-prometheus-text-format reads it (the prom2json shape). */
  families: ReturnType<typeof parsePrometheusTextFormat>;
}

/**
 * Reads Prometheus text exposition (format 0.0.4) strictly, throwing at the
 * first departure: every sample belongs to a family declared by one TYPE
 * line before it, names and label sets are well formed, no series is
 * repeated, and a histogram's buckets never go down and end at `+Inf` equal
 * to its `_count`. Then parses it again with parse-prometheus-text-format.
 */
export function readExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const series: Series[] = [];
  const seen = new Set<string>();
  let current: string | undefined;
  if (!text.endsWith('\n')) throw new Error('exposition does not end with a newline');
  text
    .slice(0, -1)
    .split('\n')
    .forEach((line, i) => {
      const where = `line ${i + 1}: ${line.slice(0, 120)}`;
      if (line === '') return;
      if (line.startsWith('# HELP ')) {
        const name = line.slice(7).split(' ')[0]!;
        if (!NAME.test(name)) throw new Error(`bad HELP name, ${where}`);
        return;
      }
      if (line.startsWith('# TYPE ')) {
        const [name, type, extra] = line.slice(7).split(' ');
        if (!name || !NAME.test(name) || !type || !(type in SUFFIXES) || extra !== undefined) {
          throw new Error(`bad TYPE, ${where}`);
        }
        if (types.has(name)) throw new Error(`family declared twice, ${where}`);
        types.set(name, type);
        current = name;
        return;
      }
      if (line.startsWith('#')) return;
      const match = SAMPLE.exec(line);
      if (!match) throw new Error(`malformed sample, ${where}`);
      const [, name, labelText = '', value] = match;
      if (!VALUE.test(value!)) throw new Error(`bad value, ${where}`);
      const family = current;
      const type = family === undefined ? undefined : types.get(family);
      if (!family || !type || !SUFFIXES[type]!.some((suffix) => name === family + suffix)) {
        throw new Error(`sample outside its declared family, ${where}`);
      }
      const labels: Record<string, string> = {};
      for (const [, key, v] of labelText.matchAll(LABEL)) {
        if (key! in labels) throw new Error(`repeated label, ${where}`);
        labels[key!] = v!;
      }
      const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
      if (seen.has(key)) throw new Error(`repeated series, ${where}`);
      seen.add(key);
      series.push({ name: name!, labels, value: Number(value!.replace(/^([-+]?)inf(inity)?$/i, '$1Infinity')) });
    });
  for (const [family, type] of types) {
    if (type === 'histogram') checkHistogram(family, series);
  }
  return { types, series, families: parsePrometheusTextFormat(text) };
}

function checkHistogram(family: string, series: Series[]): void {
  const groups = new Map<string, Series[]>();
  for (const s of series.filter((s) => s.name === `${family}_bucket`)) {
    const { le, ...rest } = s.labels;
    if (le === undefined) throw new Error(`${family} bucket without le`);
    const key = JSON.stringify(Object.entries(rest).sort());
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  for (const [key, buckets] of groups) {
    const counts = buckets.map((b) => b.value);
    if (counts.some((c, i) => i > 0 && c < counts[i - 1]!)) throw new Error(`${family}${key}: buckets go down`);
    const last = buckets[buckets.length - 1]!;
    const count = series.find(
      (s) => s.name === `${family}_count` && JSON.stringify(Object.entries(s.labels).sort()) === key,
    );
    if (last.labels.le !== '+Inf' || count?.value !== last.value) {
      throw new Error(`${family}${key}: the +Inf bucket is not the count`);
    }
  }
}

/** The metric names docs/metrics.md documents. */
export function documentedMetricNames(root: string): string[] {
  const readme = readFileSync(join(root, 'docs', 'metrics.md'), 'utf8');
  return [...readme.matchAll(/^\| `(shortlink_[a-z_]+)` *\|/gm)].map((m) => m[1]!);
}
