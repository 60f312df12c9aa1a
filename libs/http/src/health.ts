import { errorBody } from './errors';
import { HTTP_ERRORS } from './http-errors';
import type { FastifyInstance } from 'fastify';

export interface HealthOptions {
  /** The service name reported by the health route. */
  service: string;
  /** False while the process is starting or draining. */
  ready: () => boolean;
}

const healthSchema = {
  response: {
    200: {
      type: 'object',
      properties: { status: { type: 'string' }, service: { type: 'string' } },
      required: ['status', 'service'],
    },
    503: {
      type: 'object',
      properties: { error: { type: 'string' }, code: { type: 'string' } },
      required: ['error', 'code'],
    },
  },
} as const;

/** `GET /healthz`: 200 once the process can serve, 503 before and while draining. */
export async function healthRoutes(app: FastifyInstance, options: HealthOptions): Promise<void> {
  app.get('/healthz', { schema: healthSchema }, async (_request, reply) => {
    if (!options.ready()) return reply.code(503).send(errorBody(HTTP_ERRORS.notReady.error, HTTP_ERRORS.notReady.code));
    return { status: 'ok', service: options.service };
  });
}
