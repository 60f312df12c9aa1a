import { counter, gauge, histogram, type MetricsRegistry } from '@shortlink/metrics';
import type { AttemptOutcome } from './attempt-outcome';
import type { DeliveryResult } from './deliver';

/** The dispatcher's instruments (docs/metrics.md). */
export function dispatcherMetrics(registry: MetricsRegistry) {
  const attempts = counter(registry, {
    name: 'shortlink_webhook_attempts_total',
    help: 'Webhook delivery attempts, by what followed (delivered, retry, give_up, disabled) and the answer (2xx…5xx, or none).',
    labelNames: ['outcome', 'status'] as const,
  });
  const attemptSeconds = histogram(registry, {
    name: 'shortlink_webhook_attempt_seconds',
    help: 'How long one webhook delivery attempt took, to its answer or its failure.',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const queuedSeconds = histogram(registry, {
    name: 'shortlink_webhook_delivered_after_seconds',
    help: 'From a message queued to its delivery: retries included.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60, 600, 3600, 86400],
  });
  const disabled = counter(registry, {
    name: 'shortlink_webhook_endpoints_disabled_total',
    help: 'Webhook endpoints disabled by the dispatcher, by reason (gone: it answered 410; failing: 24 hours of failures).',
    labelNames: ['reason'] as const,
  });
  const enqueued = counter(registry, {
    name: 'shortlink_webhook_messages_queued_total',
    help: 'Webhook messages queued for an endpoint (a message read twice is counted once).',
  });
  const inFlight = gauge(registry, {
    name: 'shortlink_webhook_attempts_in_flight',
    help: 'Webhook delivery attempts under way in this process.',
  });
  return {
    attempted(result: DeliveryResult, outcome: AttemptOutcome, queuedAt: Date, now: Date): void {
      const status = result.kind === 'answered' ? `${Math.floor(result.status / 100)}xx` : 'none';
      const label = outcome.kind === 'give-up' ? 'give_up' : outcome.kind === 'disable' ? 'disabled' : outcome.kind;
      attempts.inc({ outcome: label, status });
      attemptSeconds.observe(result.latencyMs / 1000);
      if (outcome.kind === 'delivered') queuedSeconds.observe(Math.max(0, now.getTime() - queuedAt.getTime()) / 1000);
    },
    disabled: (reason: 'gone' | 'failing') => disabled.inc({ reason }),
    enqueued: (n: number) => enqueued.inc(n),
    inFlight: (n: number) => inFlight.set(n),
  };
}
export type DispatcherMetrics = ReturnType<typeof dispatcherMetrics>;
