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
import { serveUntilSignalled } from './serve';
import { createServer } from './server';

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
  /** Stops background work and releases what the module owns. */
  stop?: () => Promise<void>;
  /** What it needs to do its work now: `/readyz` checks each (see readiness.ts). */
  dependencies?: readonly Dependency[];
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
  /** Released after every module has stopped: pools, producers, clients. */
  onClose?: () => Promise<void>;
  /** The process's one registry, the modules' metrics on it; served at `/metrics` with the HTTP layer's own. */
  metrics: MetricsRegistry;
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
  for (const module of modules) {
    if (module.routes) await app.register(module.routes);
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
  const stopAll = async (): Promise<void> => {
    ready = false;
    for (const module of started.reverse()) {
      try {
        await module.stop?.();
      } catch (err) {
        app.log.error({ err, module: module.name }, 'module failed to stop cleanly');
      }
    }
    await options.onClose?.();
  };
  try {
    for (const module of modules) {
      await module.start?.();
      started.push(module);
    }
    await serveUntilSignalled(app, {
      host: options.host,
      port: options.port,
      drainMs: options.drainMs,
      onDrain: () => (ready = false),
      onClose: stopAll,
    });
  } catch (err) {
    await app.close();
    await stopAll();
    throw err;
  }
  ready = true;
  app.log.info({ modules: modules.map((m) => m.name), port: options.port }, 'serving');
  return app;
}

/** The routes every process serves beside its modules' (see buildProcessServer), as the API document lists them. */
export const PROCESS_ROUTES: readonly ApiRoute[] = [HEALTH_ROUTE, READY_ROUTE, METRICS_ROUTE];
