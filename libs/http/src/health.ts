import { API_ROUTE_TAGS, errorResponse, NO_SECURITY, servedSchema, type ApiRoute } from './api-route';
import { textBody } from './errors';
import { HTTP_ERRORS } from './http-errors';
import type { FastifyInstance } from 'fastify';

export interface HealthOptions {
  /** The service name reported by the health route. */
  service: string;
  /** False while the process is starting or draining. */
  ready: () => boolean;
}

export const HEALTH_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/healthz',
  schema: {
    operationId: 'health',
    summary: 'Whether this process can serve',
    description:
      'Every process answers it: `200` once it can serve, `503` while it starts or drains (a load balancer takes it out of rotation then).',
    tags: [API_ROUTE_TAGS.operations],
    security: NO_SECURITY,
    response: {
      200: {
        description: 'The process can serve.',
        type: 'object',
        properties: { status: { type: 'string', enum: ['ok'] }, service: { type: 'string' } },
        required: ['status', 'service'],
        examples: [{ status: 'ok', service: 'shortlink' }],
      },
      503: errorResponse('The process is starting or draining.', { notReady: HTTP_ERRORS.notReady }),
    },
  },
};

/** `GET /healthz`: 200 once the process can serve, 503 before and while draining. */
export async function healthRoutes(app: FastifyInstance, options: HealthOptions): Promise<void> {
  app.get(HEALTH_ROUTE.url, { schema: servedSchema(HEALTH_ROUTE) }, async (_request, reply) => {
    if (!options.ready()) return reply.code(503).send(textBody(HTTP_ERRORS.notReady));
    return { status: 'ok', service: options.service };
  });
}
