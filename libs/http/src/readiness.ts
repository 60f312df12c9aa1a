import type { FastifyInstance } from 'fastify';
import { scrapedGauge, type MetricsRegistry } from '@shortlink/metrics';
import { API_ROUTE_TAGS, ERROR_DETAIL_PROPERTIES, NO_SECURITY, servedSchema, type ApiRoute } from './api-route';
import { errorBody } from './errors';
import { HTTP_ERRORS } from './http-errors';

/**
 * A store or broker a module needs to do its work. `check` resolves when it
 * answers and throws when it does not; the same function given by several
 * modules (one pool shared by the services of an all-in-one process) is
 * checked once.
 */
export interface Dependency {
  /** `postgres`, `kafka`, `clickhouse`. */
  name: string;
  check: () => Promise<void>;
  /**
   * Whether the module can do without it right now (default: never). The
   * redirector answers cached links while Postgres is away, so its Postgres
   * is needed only while its cache is cold.
   */
  required?: () => boolean;
}

export interface DependencyState {
  module: string;
  name: string;
  state: 'up' | 'down';
  required: boolean;
  /** Why it is down. */
  error?: string;
}

export interface ReadinessReport {
  ready: boolean;
  dependencies: DependencyState[];
}

export interface ReadinessOptions {
  /** How long one answer is reused: a storm of probes costs one check per dependency per period. */
  cacheMs?: number;
  /** A check that takes longer counts as down. */
  timeoutMs?: number;
  now?: () => number;
}

interface CheckState {
  /** The check under way; a new one starts only once it ends. */
  running?: Promise<string | undefined>;
  startedAt: number;
  /** undefined: up; otherwise why it is down. */
  last?: string | undefined;
  checkedAt: number;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

/**
 * Asks every module's dependencies, each at most once per `cacheMs` and never
 * two at a time: a check still running past `timeoutMs` (a Postgres that
 * takes connections and never answers) reports the dependency down without
 * starting another. Never throws.
 */
export function readinessChecker(
  modules: readonly { name: string; dependencies?: readonly Dependency[] }[],
  options: ReadinessOptions = {},
): () => Promise<ReadinessReport> {
  const cacheMs = options.cacheMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 1000;
  const now = options.now ?? Date.now;
  const states = new Map<() => Promise<void>, CheckState>();

  async function stateOf(check: () => Promise<void>): Promise<string | undefined> {
    let state = states.get(check);
    if (!state) states.set(check, (state = { startedAt: 0, checkedAt: -Infinity }));
    const s = state;
    if (now() - s.checkedAt < cacheMs) return s.last;
    if (!s.running) {
      s.startedAt = now();
      s.running = check().then(
        () => undefined,
        (err: unknown) => messageOf(err),
      );
      void s.running.then((outcome) => {
        s.running = undefined;
        s.last = outcome;
        s.checkedAt = now();
      });
    }
    const left = Math.max(0, timeoutMs - (now() - s.startedAt));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), left);
    });
    try {
      return await Promise.race([s.running, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  return async () => {
    const dependencies = await Promise.all(
      modules.flatMap((module) =>
        (module.dependencies ?? []).map(async (dependency): Promise<DependencyState> => {
          const error = await stateOf(dependency.check);
          const required = dependency.required?.() ?? true;
          return {
            module: module.name,
            name: dependency.name,
            state: error === undefined ? 'up' : 'down',
            required,
            ...(error === undefined ? {} : { error }),
          };
        }),
      ),
    );
    return { ready: dependencies.every((d) => d.state === 'up' || !d.required), dependencies };
  };
}

const dependencySchema = {
  type: 'object',
  properties: {
    module: { type: 'string' },
    name: { type: 'string' },
    state: { type: 'string', enum: ['up', 'down'] },
    required: { type: 'boolean' },
    error: { type: 'string' },
  },
  required: ['module', 'name', 'state', 'required'],
} as const;

export const READY_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/readyz',
  schema: {
    operationId: 'ready',
    summary: 'Whether this process can do its work now',
    description:
      'Readiness, apart from liveness (`/healthz`): each store this process needs, checked at most once a second. A redirector with a warm cache stays ready while Postgres is away.',
    tags: [API_ROUTE_TAGS.operations],
    security: NO_SECURITY,
    response: {
      200: {
        description: 'Ready: every required dependency is up.',
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['ready'] },
          service: { type: 'string' },
          dependencies: { type: 'array', items: dependencySchema },
        },
        required: ['status', 'service', 'dependencies'],
      },
      503: {
        description: 'Not ready: a required dependency is down, or the process starts or drains.',
        type: 'object',
        properties: {
          error: { type: 'string', enum: [HTTP_ERRORS.notReady.error] },
          code: { type: 'string', enum: [HTTP_ERRORS.notReady.code] },
          detail: ERROR_DETAIL_PROPERTIES.detail,
          service: { type: 'string' },
          dependencies: { type: 'array', items: dependencySchema },
        },
        required: ['error', 'code', 'detail', 'service', 'dependencies'],
      },
    },
  },
};

/**
 * `GET /readyz`: whether this process can do its work now. 200 with each
 * dependency's state, or 503 (in the error format, with the same list) while
 * a required one is down, or while the process starts or drains. `/healthz`
 * stays the liveness answer.
 */
export async function readinessRoute(
  app: FastifyInstance,
  options: { service: string; serving: () => boolean; report: () => Promise<ReadinessReport> },
): Promise<void> {
  app.get(READY_ROUTE.url, { schema: servedSchema(READY_ROUTE) }, async (_request, reply) => {
    const { ready, dependencies } = await options.report();
    if (ready && options.serving()) return { status: 'ready', service: options.service, dependencies };
    const { status, error, code } = HTTP_ERRORS.notReady;
    const down = [...new Set(dependencies.filter((d) => d.required && d.state === 'down').map((d) => d.name))];
    const detail = ready
      ? HTTP_ERRORS.notReady.detail
      : `A required dependency is down: ${down.join(', ') || 'see dependencies'}.`;
    return reply.code(status).send({ ...errorBody(error, code, { detail }), service: options.service, dependencies });
  });
}

/**
 * Readiness as metrics, read at scrape time from the checker `/readyz` asks,
 * so Prometheus sees it where nothing probes the process (the fleet, `npm
 * start`) and a scrape costs what a probe does (each dependency checked at
 * most once a second). `shortlink_ready` is 1 when `/readyz` would answer
 * 200; `shortlink_dependency_up{module, dependency}` is each dependency's
 * state, to say which one.
 */
export function readinessMetrics(
  registry: MetricsRegistry,
  options: { serving: () => boolean; report: () => Promise<ReadinessReport> },
): void {
  scrapedGauge(
    registry,
    {
      name: 'shortlink_ready',
      help: 'Whether GET /readyz answers 200 now: every required dependency up, and the process serving (not starting or draining).',
    },
    async () => [{ labels: {}, value: (await options.report()).ready && options.serving() ? 1 : 0 }],
  );
  scrapedGauge(
    registry,
    {
      name: 'shortlink_dependency_up',
      help: 'Whether a dependency of a module answers its readiness check (1) or not (0).',
      labelNames: ['module', 'dependency'] as const,
    },
    async () =>
      (await options.report()).dependencies.map((d) => ({
        labels: { module: d.module, dependency: d.name },
        value: d.state === 'up' ? 1 : 0,
      })),
  );
}
