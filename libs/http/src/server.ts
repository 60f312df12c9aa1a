import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import { errorBody, HttpError } from './errors';

export interface ServerOptions {
  /** A pino logger shared with the process's other components, or false for none (tests). */
  logger: FastifyBaseLogger | false;
  trustProxy: boolean;
  /** Largest request body accepted, in bytes; larger ones get 413. */
  bodyLimit?: number;
}

/** Fastify's own client-side errors, and the text each one shows the client. */
const CLIENT_ERRORS: Record<string, { status: number; text: string; code: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, text: 'Invalid request body', code: 'invalid_body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, text: 'Invalid request body', code: 'invalid_body' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 400, text: 'Invalid request body', code: 'invalid_body' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, text: 'Invalid request body', code: 'invalid_body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, text: 'Request body too large', code: 'body_too_large' },
};

/**
 * The one place that shapes HTTP errors: every error, from any route of any
 * service, leaves as `{"error": text, "code": code}` with a 4xx or 5xx status.
 */
export function createServer(options: ServerOptions): FastifyInstance {
  const app = Fastify({
    ...(options.logger === false ? { logger: false } : { loggerInstance: options.logger }),
    trustProxy: options.trustProxy,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    return503OnClosing: true,
    // Slugs are case-sensitive in the contract; a trailing slash is not a different resource.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    requestIdHeader: 'x-request-id',
    // A log line per request would cost more than a redirect itself; errors are
    // still logged by the error handler below.
    logController: new LogController({ disableRequestLogging: true }),
  });
  // The API speaks JSON only; any other body is refused as a client error.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      void reply.code(error.statusCode).headers(error.headers).send(errorBody(error.message, error.code));
      return;
    }
    const known = error.code ? CLIENT_ERRORS[error.code] : undefined;
    if (known) {
      void reply.code(known.status).send(errorBody(known.text, known.code));
      return;
    }
    if (error.validation) {
      const text = error.validationContext === 'body' ? 'Invalid request body' : 'Invalid request';
      void reply
        .code(400)
        .send(errorBody(text, error.validationContext === 'body' ? 'invalid_body' : 'invalid_request'));
      return;
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      void reply.code(status).send(errorBody(error.message, 'bad_request'));
      return;
    }
    request.log.error({ err: error }, 'unhandled error');
    void reply.code(500).send(errorBody('Internal server error', 'internal'));
  });

  app.setNotFoundHandler((_request, reply) => {
    void reply.code(404).send(errorBody('Not found', 'not_found'));
  });

  return app;
}
