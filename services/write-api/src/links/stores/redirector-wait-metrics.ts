import { histogram, type MetricsRegistry } from '@shortlink/metrics';
import type { RedirectorWaitOutcome } from './redirector-acks';

/**
 * `shortlink_link_change_redirector_wait_seconds{outcome}`: how long each
 * committed change waited for the redirectors before its answer, by how the
 * wait ended (RedirectorWaitOutcome). Milliseconds when they confirm; a
 * `lapsed` or `unknown` wait is up to a lease (3 s) and says a redirector
 * stopped answering for its cache.
 */
export function timeRedirectorWaits(
  registry: MetricsRegistry,
): (outcome: RedirectorWaitOutcome, seconds: number) => void {
  const waits = histogram(registry, {
    name: 'shortlink_link_change_redirector_wait_seconds',
    help: 'Time a committed link change waited for the redirectors to drop the link, by outcome (confirmed, lapsed, unknown, none).',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 4, 5],
  });
  return (outcome, seconds) => waits.labels({ outcome }).observe(seconds);
}
