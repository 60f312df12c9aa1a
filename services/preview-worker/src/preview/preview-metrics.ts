import { counter, type MetricsRegistry } from '@shortlink/metrics';
import type { PreviewOutcome } from './fetch-preview';

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
