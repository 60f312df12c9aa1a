import { counter, type MetricsRegistry } from '@shortlink/metrics';
import type { PreviewOutcome } from './fetch-preview';
import type { PreviewSource } from './shared-previews';

/**
 * `shortlink_preview_outcomes_total{outcome, reason}`: each preview recorded,
 * `fetched` (reason `ok`) or `failed` by its stable code (`timeout`,
 * `blocked_address`, `http_404`, ...; see fetch-errors.ts).
 */
export function previewOutcomes(registry: MetricsRegistry): (outcome: PreviewOutcome) => void {
  const outcomes = counter(registry, {
    name: 'shortlink_preview_outcomes_total',
    help: 'Link previews recorded, by outcome (fetched, failed) and reason (ok, or the failure code).',
    labelNames: ['outcome', 'reason'] as const,
  });
  return (outcome) =>
    outcomes.inc(
      outcome.kind === 'fetched' ? { outcome: 'fetched', reason: 'ok' } : { outcome: 'failed', reason: outcome.code },
    );
}

/**
 * `shortlink_preview_sources_total{source}`: where each link's preview came
 * from: `fetch` (fetched for it), `shared` (a fetch of the same destination
 * under way) or `cache` (fetched recently for another link).
 */
export function previewSources(registry: MetricsRegistry): (source: PreviewSource) => void {
  const sources = counter(registry, {
    name: 'shortlink_preview_sources_total',
    help: 'Link previews by where they came from: fetch (for this link), shared (a fetch under way), cache (a recent fetch).',
    labelNames: ['source'] as const,
  });
  return (source) => sources.inc({ source });
}
