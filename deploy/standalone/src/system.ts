/**
 * The whole system's composition: every service wired from one set of
 * settings onto the stores a process opened. `npm start` (this package's
 * main.ts) and the integration tests call it; each service's own entry point
 * calls the same per-service compose function it is built from. There is no
 * other wiring. This is a composition root, not a service, so it may import
 * services; the services never import each other.
 */
import type { ServiceModule } from '@shortlink/http';
import { composeAnalytics, createAnalytics } from '@shortlink/service-analytics';
import { composeApiDocs, createApiDocs } from '@shortlink/service-api-docs';
import { composePreviewWorker, type PreviewWorkerSeams } from '@shortlink/service-preview-worker';
import { composeProjector } from '@shortlink/service-projector';
import { composeRedirector, createRedirector } from '@shortlink/service-redirector';
import { composeWebhookDispatcher, type WebhookDispatcherSeams } from '@shortlink/service-webhook-dispatcher';
import { composeWriteApi, createWriteApi } from '@shortlink/service-write-api';
import { clickProjectorOnThread } from './click-projector-on-thread';
import type { SystemSettings, SystemStores } from './system-config';

export { systemConfig, type SystemSettings, type SystemStores } from './system-config';

export interface SystemOptions {
  /** Runs the preview worker (on by default). */
  previews?: boolean;
  /** Test seams of the preview worker; see PreviewWorkerSeams. */
  previewSeams?: PreviewWorkerSeams;
  /** Runs the webhook dispatcher (on by default). */
  webhooks?: boolean;
  /** Test seams of the webhook dispatcher; see WebhookDispatcherSeams. */
  webhookSeams?: WebhookDispatcherSeams;
  /**
   * Where the click projection runs (when PROJECTIONS has it): on the event
   * loop with the rest, or on a worker thread of its own. The embedded mode
   * uses the thread: its event log, ClickHouse endpoint and redirects share
   * this process, and the projection's per-click work would take the
   * redirects' event loop (docs/decisions/0019-embedded-click-projection-on-a-thread.md).
   */
  clickProjection?: 'event-loop' | 'worker-thread';
}

export interface ComposedSystem {
  /** In start order; the redirector last, since its `/:slug` route is the catch-all. */
  modules: ServiceModule[];
  /** Sends the redirector's queued clicks to the event log now. */
  flushClicks(): Promise<void>;
}

export async function composeSystem(
  settings: SystemSettings,
  stores: SystemStores,
  options: SystemOptions = {},
): Promise<ComposedSystem> {
  const redirector = await composeRedirector(settings, stores);
  const writeApi = composeWriteApi(settings, {
    ...stores,
    // Same process: the redirector forgets a cached "not found" before the 201 leaves.
    onLinkCommitted: (slug) => redirector.cache.forget(slug),
    // And drops a changed or deleted link at once (the others are told through Postgres).
    onLinkChanged: (slug) => redirector.cache.invalidate(slug),
  });
  const clicksOnThread = options.clickProjection === 'worker-thread' && settings.PROJECTIONS.includes('clicks');
  const inProcess = clicksOnThread
    ? { ...settings, PROJECTIONS: settings.PROJECTIONS.filter((p) => p !== 'clicks') }
    : settings;
  return {
    modules: [
      ...(inProcess.PROJECTIONS.length > 0 ? [composeProjector(inProcess, stores)] : []),
      ...(clicksOnThread ? [clickProjectorOnThread(settings, stores)] : []),
      ...(options.previews === false ? [] : [composePreviewWorker(settings, stores, options.previewSeams)]),
      ...(options.webhooks === false ? [] : [composeWebhookDispatcher(settings, stores, options.webhookSeams)]),
      createWriteApi(writeApi),
      createAnalytics(composeAnalytics(settings, stores)),
      createApiDocs(composeApiDocs(settings)),
      createRedirector(redirector),
    ],
    flushClicks: () => redirector.clickQueue?.flush() ?? Promise.resolve(),
  };
}
