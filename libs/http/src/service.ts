import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { MetricsRegistry } from '@shortlink/metrics';
import type { ApiRoute } from './api-route';
import { HEALTH_ROUTE, healthRoutes } from './health';
import {
  readinessChecker,
  readinessMetrics,
  readinessRoute,
  READY_ROUTE,
  type Dependency,
  type ReadinessReport,
} from './readiness';
import { METRICS_ROUTE, metricsRoute, recordRequestMetrics } from './request-metrics';
import { allowCrossOrigin } from './cross-origin';
import { serveUntilSignalled } from './serve';
import { processStopSignals, SHUTDOWN_GRACE_MS } from './stop-signals';
import { createServer } from './server';
import { loadShedder, type LoadSheddingOptions } from './load-shedding';

/**
 * What a service contributes to a process: HTTP routes, background work
 * (consumers), or both. A process runs one module (its own entry point) or
 * several (`npm start`), with the same code either way.
 */
export interface ServiceModule {
  name: string;
  routes?: FastifyPluginAsync;
  /** Starts background work; resolves once it is running. */
  start?: () => Promise<void>;
  /**
   * Stops background work and releases what the module owns. `deadline`
   * (ms since the epoch) is when the process's close must be over: work that
   * waits on something away (Kafka stalled) gives up by then.
   */
  stop?: (deadline?: number) => Promise<void>;
  /** What it needs to do its work now: `/readyz` checks each (see readiness.ts). */
  dependencies?: readonly Dependency[];
  /** Its routes may be called by pages of the origins the process allows (ProcessOptions' `corsOrigins`). */
  crossOrigin?: boolean;
  /** Its routes are refused `503 overloaded` when the process is over its bounds (ProcessOptions' `loadShedding`). */
  shedsLoad?: boolean;
}

export interface ProcessOptions {
  name: string;
  host: string;
  port: number;
  trustProxy: boolean;
  logger: FastifyBaseLogger | false;
  bodyLimit?: number;
  /** On SIGTERM, how long to keep serving while /healthz answers 503 (see SHUTDOWN_DRAIN_MS). */
  drainMs?: number;
  /** HTTP_REQUEST_TIMEOUT_MS: the whole request must arrive within this; else 408 (default HTTP_LIMITS'). */
  requestTimeoutMs?: number;
  /** Released after every module has stopped (or its time ran out): pools, producers, clients. */
  onClose?: () => Promise<void>;
  /** The process's one registry, the modules' metrics on it; served at `/metrics` with the HTTP layer's own. */
  metrics: MetricsRegistry;
  /** CORS_ORIGINS: the origins whose pages may call the `crossOrigin` modules' routes (`*`: any); none by default. */
  corsOrigins?: readonly string[];
  /** MAX_REQUESTS_IN_FLIGHT and MAX_EVENT_LOOP_DELAY_MS, for the `shedsLoad` modules' routes; none by default. */
  loadShedding?: LoadSheddingOptions;
}

/** `/healthz`, `/metrics` and `/readyz`: what every process serves beside its modules' routes (PROCESS_ROUTES). */
export async function processRoutes(
  app: FastifyInstance,
  options: { service: string; ready: () => boolean; metrics: MetricsRegistry; report: () => Promise<ReadinessReport> },
): Promise<void> {
  await app.register(healthRoutes, { service: options.service, ready: options.ready });
  await app.register(async (scope) => metricsRoute(scope, options.metrics));
  await app.register(readinessRoute, { service: options.service, serving: options.ready, report: options.report });
}

/** Builds the HTTP server for a set of modules, without listening. */
export async function buildProcessServer(
  modules: readonly ServiceModule[],
  options: Omit<ProcessOptions, 'host' | 'port' | 'onClose'>,
  ready: () => boolean,
): Promise<FastifyInstance> {
  const app = createServer({
    logger: options.logger,
    trustProxy: options.trustProxy,
    bodyLimit: options.bodyLimit,
    limits: options.requestTimeoutMs === undefined ? undefined : { requestTimeoutMs: options.requestTimeoutMs },
  });
  // First, so that every route after it is measured.
  recordRequestMetrics(app, options.metrics);
  const report = readinessChecker(modules);
  readinessMetrics(options.metrics, { serving: ready, report });
  await processRoutes(app, { service: options.name, ready, metrics: options.metrics, report });
  const corsOrigins = options.corsOrigins ?? [];
  const crossOrigin = corsOrigins.length > 0 ? modules.filter((m) => m.crossOrigin) : [];
  // One per process (its modules share the event loop), guarding the shedding modules' routes only: never a redirect,
  // nor /healthz, which must keep telling the load balancer the truth.
  const shedder = options.loadShedding ? loadShedder(options.loadShedding) : undefined;
  if (shedder) app.addHook('onClose', async () => shedder.close());
  const register = async (scope: FastifyInstance, module: ServiceModule) => {
    const { routes } = module;
    if (!routes) return;
    if (!shedder || !module.shedsLoad) return void (await scope.register(routes));
    await scope.register(async (guarded) => {
      shedder.guard(guarded);
      await guarded.register(routes);
    });
  };
  for (const module of modules) if (!crossOrigin.includes(module)) await register(app, module);
  if (crossOrigin.length > 0) {
    // One scope, so that CORS's hook runs on these modules' routes only (never on a redirect).
    await app.register(async (scope) => {
      await allowCrossOrigin(scope, corsOrigins);
      for (const module of crossOrigin) await register(scope, module);
    });
  }
  return app;
}

/** Starts every module, serves HTTP, and on a signal stops them in reverse order. */
export async function runServices(
  modules: readonly ServiceModule[],
  options: ProcessOptions,
): Promise<FastifyInstance> {
  let ready = false;
  const app = await buildProcessServer(modules, options, () => ready);
  const started: ServiceModule[] = [];
  const stopAll = async (deadline: number): Promise<void> => {
    ready = false;
    await stopModules(started, deadline, app.log);
    await options.onClose?.();
  };
  const signals = processStopSignals();
  let address: string | undefined;
  try {
    for (const module of modules) {
      // Signalled while starting: what started is stopped by the close below, the rest never starts.
      if (signals.requestedWhileStarting()) break;
      await module.start?.();
      started.push(module);
    }
    address = await serveUntilSignalled(app, {
      host: options.host,
      port: options.port,
      drainMs: options.drainMs,
      onDrain: () => (ready = false),
      onClose: stopAll,
    });
  } catch (err) {
    await app.close();
    await stopAll(Date.now() + SHUTDOWN_GRACE_MS);
    throw err;
  }
  if (address === undefined) return app;
  ready = true;
  app.log.info({ modules: modules.map((m) => m.name), port: options.port }, 'serving');
  return app;
}

/**
 * Stops modules in the reverse order of their start, each within what is
 * left until `deadline`. One that is not done by then (a Kafka consumer's
 * disconnect waits on a stalled broker for as long as it lasts) is left to
 * itself, logged, and the others are stopped all the same: the process then
 * closes its pools and exits within its grace period, rather than being
 * killed at its end with nothing closed.
 */
export async function stopModules(
  modules: readonly ServiceModule[],
  deadline: number,
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>,
): Promise<void> {
  for (const module of [...modules].reverse()) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()));
    });
    const stopping = Promise.resolve()
      .then(() => module.stop?.(deadline))
      .then(
        () => 'stopped' as const,
        (err: unknown) => {
          log.error({ err, module: module.name }, 'module failed to stop cleanly');
          return 'failed' as const;
        },
      );
    if ((await Promise.race([stopping, late])) === 'late') {
      log.warn({ module: module.name }, 'module did not stop in time; the process closes without waiting for it');
    }
    clearTimeout(timer);
  }
}

/** The routes every process serves beside its modules' (see buildProcessServer), as the API document lists them. */
export const PROCESS_ROUTES: readonly ApiRoute[] = [HEALTH_ROUTE, READY_ROUTE, METRICS_ROUTE];
