import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { ApiRoute, ServiceModule } from '@shortlink/http';
import { API_TITLE, buildApiDocument, type ApiDocumentOptions } from './api-document';
import { requestInterceptor, responseInterceptor } from './try-it-out';

export const SERVICE_NAME = 'api-docs';

export interface ApiDocsDeps extends ApiDocumentOptions {
  /** Every service's routes: the document describes the whole API, whichever process serves it. */
  routes: readonly ApiRoute[];
}

/**
 * `GET /openapi.json`, the API document, and `GET /docs`, its reference page
 * (Swagger UI, titled after the project, its files served from the `@fastify/swagger-ui` package: the
 * page fetches nothing from elsewhere). `docs` is a reserved slug, and
 * `openapi.json` cannot be one, so neither hides a link.
 */
export function createApiDocs(deps: ApiDocsDeps): ServiceModule {
  return {
    name: SERVICE_NAME,
    crossOrigin: true,
    async routes(app: FastifyInstance) {
      const document = await buildApiDocument(deps.routes, deps);
      const json = JSON.stringify(document);
      app.get('/openapi.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(json));
      await app.register(swagger, { mode: 'static', specification: { document: document as never } });
      await app.register(swaggerUi, {
        routePrefix: '/docs',
        // Left unset, `validatorUrl` is null: no online validator badge, the page talks to this service only.
        uiConfig: {
          deepLinking: true,
          defaultModelsExpandDepth: 0,
          // Written into the page's initializer script (a file of its own, so the page's CSP allows it).
          requestInterceptor,
          responseInterceptor: responseInterceptor as never,
        },
        theme: { title: API_TITLE },
        staticCSP: true,
      });
    },
  };
}
