import type { FastifyInstance } from 'fastify';
import { accountOf, requireApiKey, type Authenticate } from '@shortlink/accounts';
import {
  errorResponseSchema,
  HttpError,
  LINK_RESPONSE_FIELDS,
  linkResponseProperties,
  type ServiceModule,
} from '@shortlink/http';
import { createLink, type CreateLinkDeps } from './links/create-link';
import { validateCreateLink } from './links/create-link-validation';
import { serviceAddresses } from './links/self-link';

export const SERVICE_NAME = 'write-api';

export interface WriteApiDeps extends CreateLinkDeps {
  authenticate: Authenticate;
  /** Started and stopped with the module: the Kafka producer, for one. */
  start?: () => Promise<void>;
  stop?: () => Promise<void>;
}

const linkSchema = {
  type: 'object',
  properties: linkResponseProperties,
  required: LINK_RESPONSE_FIELDS,
} as const;

/** Accepts link creation (spec 4.1) and appends LinkCreated events to Kafka. */
export function createWriteApi(deps: WriteApiDeps): ServiceModule {
  const service = serviceAddresses(deps.publicBaseUrl);
  return {
    name: SERVICE_NAME,
    start: deps.start,
    stop: deps.stop,
    async routes(app: FastifyInstance) {
      app.decorateRequest('account', null);
      app.post(
        '/api/v1/links',
        {
          onRequest: requireApiKey(deps.authenticate),
          schema: {
            // Field rules live in validateCreateLink, which names each problem the way the spec does.
            body: { type: 'object' },
            response: {
              201: linkSchema,
              400: errorResponseSchema,
              401: errorResponseSchema,
              403: errorResponseSchema,
              409: errorResponseSchema,
            },
          },
        },
        async (request, reply) => {
          const account = accountOf(request);
          const validated = validateCreateLink(request.body, account.plan, service);
          if (!validated.ok) {
            const { status, error, code } = validated.rejection;
            throw new HttpError(status, error, code);
          }
          const link = await createLink(deps, account, validated.input);
          return reply.code(201).header('location', link.shortUrl).send(link);
        },
      );
    },
  };
}
