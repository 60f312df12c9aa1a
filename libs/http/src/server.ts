import { isUtf8 } from 'node:buffer';
import { createServer as createHttpServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { isStorableJson } from '@shortlink/events';
import { closeConnectionsAfterAnswers } from './close-connections-after-answers';
import { isContentCoded } from './content-coding';
import { isDependencyOutage } from './dependency-outage';
import { headerLines } from './header-lines';
import { errorBody, excerpt, HttpError, kindOf, textBody, type ErrorDetail } from './errors';
import { methodsOfPath, routeTable } from './route-table';
import { HTTP_ERRORS, type HttpErrorText } from './http-errors';
import { HTTP_LIMITS, type HttpLimits } from './http-limits';
import { linger, lingerAfterEarlyAnswers } from './linger';

export interface ServerOptions {
  /** A pino logger shared with the process's other components, or false for none (tests). */
  logger: FastifyBaseLogger | false;
  trustProxy: boolean;
  /** Largest request body accepted, in bytes; larger ones get 413. */
  bodyLimit?: number;
  /** The HTTP layer's time and size limits; tests shorten them. */
  limits?: Partial<HttpLimits>;
}

/** Fastify's own client-side errors, and what each one shows the client. */
const FASTIFY_ERRORS: Record<string, HttpErrorText> = {
  FST_ERR_CTP_INVALID_JSON_BODY: HTTP_ERRORS.invalidBody,
  FST_ERR_CTP_EMPTY_JSON_BODY: HTTP_ERRORS.invalidBody,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: HTTP_ERRORS.mediaType,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: HTTP_ERRORS.invalidBody,
  FST_ERR_CTP_BODY_TOO_LARGE: HTTP_ERRORS.bodyTooLarge,
  FST_ERR_BAD_URL: HTTP_ERRORS.badUrl,
};

/** Errors of Node's HTTP parser, raised before any route runs, by `error.code`, and what each says. */
function parserError(error: NodeJS.ErrnoException, limits: HttpLimits): [HttpErrorText, ErrorDetail] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [
      HTTP_ERRORS.requestTimeout,
      { detail: `The request did not arrive in full within ${limits.requestTimeoutMs / 1000} s.` },
    ];
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return [HTTP_ERRORS.headersTooLarge, { detail: 'The request line and header lines are over 16 KiB.' }];
  return [HTTP_ERRORS.malformedRequest, { detail: HTTP_ERRORS.malformedRequest.detail }];
}

const toHttpError = (e: HttpErrorText, detail = e.detail) => new HttpError(e.status, e.error, e.code, { detail });

/** What a fastify error of the request's own making was about, in one sentence that echoes nothing long. */
function frameworkDetail(error: FastifyError, request: FastifyRequest, known: HttpErrorText): ErrorDetail {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        detail: `Content-Type ${excerpt(request.headers['content-type'] ?? '')} is not a media type; expected application/json.`,
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { detail: 'The body is not as long as its Content-Length says.' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { detail: `The body is over the ${request.routeOptions.bodyLimit} bytes this route takes.` };
    case 'FST_ERR_BAD_URL':
      return { detail: 'The path holds a percent-escape that does not decode as UTF-8.' };
    default:
      return { detail: known.detail };
  }
}

/** What is wrong with a body the route's schema refused (a route takes a JSON object, or nothing). */
function bodyShapeDetail(body: unknown): string {
  if (body === undefined) return 'The request has no body: expected a JSON object.';
  return `The body is ${kindOf(body)}: expected a JSON object.`;
}

/** A media type other than JSON: which one came, and what to send instead. */
function mediaTypeDetail(contentType: string | undefined): string {
  if (contentType === undefined) return 'The request has a body but no Content-Type: send it as application/json.';
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  // `curl -d` sends this unless told otherwise.
  const hint =
    type === 'application/x-www-form-urlencoded' ? " (curl -d sends it: add -H 'Content-Type: application/json')" : '';
  return `Content-Type is ${excerpt(type)}${hint}; expected application/json.`;
}

/** Where a body stops being JSON, from the parser's own message, without its echo of the body. */
function jsonSyntaxDetail(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    const { message } = e as Error;
    const position = /at position (\d+)/.exec(message)?.[1];
    if (/end of JSON input/.test(message))
      return `The body is not valid JSON: it ends (at position ${text.length}) before its value does.`;
    if (position === undefined) return `The body is not valid JSON: it starts ${excerpt(text.slice(0, 10))}.`;
    const at = Number(position);
    const near = text.slice(Math.max(0, at - 10), at + 10);
    return `The body is not valid JSON at position ${at} (near ${excerpt(near)}): a trailing comma, a missing quote or an unquoted name?`;
  }
  // Valid JSON that fastify's parser refused: a prototype-poisoning key.
  return 'The body holds a "__proto__" or "constructor" key, which is refused.';
}

/** The first top-level field holding text no store can hold (U+0000, a lone surrogate), if there is one. */
function unstorableDetail(value: unknown): string {
  const field =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.entries(value as Record<string, unknown>).find(([name, v]) => !isStorableJson({ [name]: v }))?.[0]
      : undefined;
  const where = field === undefined ? 'The body' : `Field ${excerpt(field)}`;
  return `${where} holds U+0000 or a lone surrogate, which no text field may hold.`;
}

/** RFC 9110 15.5.16: a 415 for a content coding says which codings the request could have used. */
const contentCodedError = (coding: string | undefined) =>
  new HttpError(
    HTTP_ERRORS.contentCoded.status,
    HTTP_ERRORS.contentCoded.error,
    HTTP_ERRORS.contentCoded.code,
    { detail: `Content-Encoding is ${excerpt(coding ?? '')}; send the body uncompressed, with no Content-Encoding.` },
    { 'accept-encoding': 'identity' },
  );

/** A 500 names the request id its log line carries, for a report to the operator. */
const internalDetail = (request: FastifyRequest): ErrorDetail => ({
  detail: `An unexpected error; the service logged it under request id ${excerpt(String(request.id))}.`,
});

/** Connections already answered that way: a parser that failed once fails again on every later chunk. */
const answeredOnSocket = new WeakSet<Socket>();

/**
 * An error written straight on the socket, beneath Node's HTTP server; the
 * connection is closed after it, lingering: the answer is sent and our side
 * closed, and whatever the client is still sending is read and dropped until
 * the client closes too. Closed while the client still sends, the kernel
 * answers its bytes with a reset, and a reset discards the answer if the
 * client has not read it yet.
 */
function writeOnSocket(socket: Socket, text: HttpErrorText, explained: ErrorDetail = { detail: text.detail }): void {
  const { status, error } = text;
  if (answeredOnSocket.has(socket)) return;
  answeredOnSocket.add(socket);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(textBody(text, explained));
  socket.end(
    `HTTP/1.1 ${status} ${error}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.resume();
  linger(socket);
}

/** What Node's HTTP server keeps on a socket about the exchange under way. */
interface HttpSocketState {
  _httpMessage?: ServerResponse | null;
  parser?: { incoming?: IncomingMessage | null } | null;
}

/**
 * Whether the request now arriving on the socket has had its answer, or has
 * it being sent: a request answered before its body (a 413, a redirect of a
 * GET that came with a body) whose body then stalls must not get a second
 * answer, a 408, that its client would take for the next request's. Node's
 * default handler only checks that no answer has begun, and so writes one.
 */
function answered(socket: Socket): boolean {
  const { _httpMessage: response, parser } = socket as Socket & HttpSocketState;
  if (response) return response.headersSent;
  const request = parser?.incoming;
  return request !== null && request !== undefined && !request.complete;
}

/** An error answered by Node's HTTP server before fastify sees the request; the connection is closed after it. */
function answerBeforeFastify(res: ServerResponse, text: HttpErrorText, detail: string): void {
  const body = JSON.stringify(textBody(text, { detail }));
  res.writeHead(text.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

/**
 * Node's HTTP server under fastify. Node answers a few requests itself, before
 * any handler, with an empty body: an HTTP/1.1 request without Host (400), an
 * Expect other than 100-continue (417); and it drops a CONNECT without a word.
 * Each is answered here instead, in the error format of every other answer.
 */
const ONLY_CHUNKED = /^[ \t]*chunked[ \t]*$/i;

function createNodeServer(limits: HttpLimits, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createHttpServer(
    {
      // Node's own limits on a slow or stalled client (a body sent a byte at a
      // time, a Content-Length larger than the body), checked every second.
      // Node refuses a headers timeout longer than the request's, which covers the headers too.
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
      requireHostHeader: false,
    },
    (req, res) => {
      // RFC 9112 3.2: an HTTP/1.1 request without Host, and any with two, is
      // refused with a 400 (Node keeps the first of two). A request line
      // without a version is HTTP/0.9, which Node serves: not HTTP/1.x either.
      if (req.httpVersionMajor !== 1) {
        answerBeforeFastify(res, HTTP_ERRORS.malformedRequest, 'The request is not HTTP/1.0 or HTTP/1.1.');
        return;
      }
      if (req.headers.host === undefined ? req.httpVersion === '1.1' : headerLines(req.rawHeaders, 'host') > 1) {
        answerBeforeFastify(
          res,
          HTTP_ERRORS.malformedRequest,
          'A request has at most one Host header, and an HTTP/1.1 request exactly one.',
        );
        return;
      }
      // Node takes off `chunked` and hands on what is beneath it (`gzip, chunked`)
      // as it came, which was then read as plain JSON. A transfer coding other
      // than chunked is malformed here, as Node itself answers one without
      // chunked (RFC 9112 6.1 would allow a 501; bad input is always a 4xx).
      const coding = req.headers['transfer-encoding'];
      if (coding !== undefined && !ONLY_CHUNKED.test(coding)) {
        answerBeforeFastify(
          res,
          HTTP_ERRORS.malformedRequest,
          `Transfer-Encoding is ${excerpt(coding)}; only chunked is taken.`,
        );
        return;
      }
      handler(req, res);
    },
  );
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) =>
    answerBeforeFastify(res, HTTP_ERRORS.expectationFailed, HTTP_ERRORS.expectationFailed.detail),
  );
  lingerAfterEarlyAnswers(server);
  // No route takes CONNECT: answered as any method without a route is.
  server.on('connect', (_req: IncomingMessage, socket: Socket) =>
    writeOnSocket(socket, HTTP_ERRORS.notFound, { detail: 'CONNECT is not served: this is not a proxy.' }),
  );
  return server;
}

/**
 * A path that does not decode (`/%zz`) is refused by fastify before routing,
 * through this handler and not the error handler; left to fastify, it would
 * leave in another shape, echoing the path back.
 */
function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const known = FASTIFY_ERRORS[error.code];
  if (known) {
    void reply.code(known.status).send(textBody(known, frameworkDetail(error, request, known)));
    return;
  }
  request.log.error({ err: error }, 'unhandled framework error');
  void reply.code(500).send(textBody(HTTP_ERRORS.internal, internalDetail(request)));
}

/**
 * The API's JSON bodies, decoded as UTF-8 (RFC 8259 8.1) whatever charset the header names, so a URL is stored as it
 * was sent. With `refuseUnstorable`, text no store can hold is refused as the body is parsed, before any route or I/O,
 * so it never fails a statement other requests share. Only requests with a body pay for either check. A scope that
 * checks a body's parts on their own (the creates: a custom slug gets its own text) replaces this parser with one that
 * does not refuse them whole (docs/decisions/0054-request-bodies-refused-at-the-edge.md).
 */
export function addJsonBodyParser(app: FastifyInstance, { refuseUnstorable }: { refuseUnstorable: boolean }): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // parseAs 'buffer' hands over a Buffer; fastify's type allows a string for other parsers.
    const bytes = body as Buffer;
    // No body at all (a DELETE from a client that sends Content-Type on every
    // request): the route's schema decides whether it needed one. No route: the
    // body is not read as anything, and the answer is the 404 of any unknown path.
    if (bytes.length === 0 || request.is404) {
      done(null, undefined);
      return;
    }
    if (isContentCoded(request.headers['content-encoding'])) {
      done(contentCodedError(request.headers['content-encoding']), undefined);
      return;
    }
    if (!isUtf8(bytes)) {
      done(toHttpError(HTTP_ERRORS.invalidBody, 'The body is not UTF-8 text.'), undefined);
      return;
    }
    const text = bytes.toString('utf8');
    void parseJson(request, text, (error, value) => {
      if (error) done(toHttpError(HTTP_ERRORS.invalidBody, jsonSyntaxDetail(text)), undefined);
      else if (refuseUnstorable && !isStorableJson(value))
        done(toHttpError(HTTP_ERRORS.invalidBody, unstorableDetail(value)), undefined);
      else done(null, value);
    });
  });
}

/**
 * The one place that shapes HTTP errors: every error, from any route of any
 * service or from the HTTP layer beneath them, leaves as
 * `{"error": text, "code": code}` with a 4xx or 5xx status, and with `detail`
 * (what is wrong in this request) and `field` when the error has them.
 */
export function createServer(options: ServerOptions): FastifyInstance {
  const limits = { ...HTTP_LIMITS, ...options.limits };
  const app = Fastify({
    ...(options.logger === false ? { logger: false } : { loggerInstance: options.logger }),
    trustProxy: options.trustProxy,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    // While draining, a request that still arrives on an open keep-alive
    // connection is answered as usual, with `Connection: close` (fastify's
    // own 503 for it has a body of another shape, and the process can still
    // serve it: the stores close only after the last request).
    return503OnClosing: false,
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => createNodeServer(limits, handler),
    clientErrorHandler: (error: NodeJS.ErrnoException, socket: Socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      if (answered(socket)) socket.destroy();
      else writeOnSocket(socket, ...parserError(error, limits));
    },
    frameworkErrors: answerFrameworkError,
    // Slugs are case-sensitive in the contract; a trailing slash is not a
    // different resource. A path segment of any length reaches its route, which
    // answers it as the contract says (a 404 for an unknown slug), never a 414.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: limits.maxPathSegmentLength },
    requestIdHeader: 'x-request-id',
    // A log line per request would cost more than a redirect itself; errors are
    // still logged by the error handler below.
    logController: new LogController({ disableRequestLogging: true }),
  });
  closeConnectionsAfterAnswers(app);
  // The API speaks JSON only; any other body is refused as a client error.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  addJsonBodyParser(app, { refuseUnstorable: true });
  // Any other media type, or none: a 415 naming the one taken, unless there is
  // no body to refuse (an empty DELETE sent with `Content-Type: text/plain` deletes).
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if ((body as Buffer).length === 0 || request.is404) done(null, undefined);
    else done(toHttpError(HTTP_ERRORS.mediaType, mediaTypeDetail(request.headers['content-type'])), undefined);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // fastify closes the connection after a body it refused, even one not read
    // yet; closed while the client still sends, the connection is reset, and
    // the reset discards an answer the client has not read. Kept open, Node
    // reads and drops the rest of the body (within the request timeout), and
    // the connection serves on, as after any request answered before its body.
    // Unless the connection ends anyway (the process is closing, or the client asked).
    if (reply.getHeader('connection') === 'close' && reply.raw.shouldKeepAlive) reply.removeHeader('connection');
    if (error instanceof HttpError) {
      // A deliberate 5xx (a change saved but its event not confirmed, an append past its deadline) says
      // why to the operator: its answer names the likely cause, the log the actual one.
      if (error.statusCode >= 500) request.log.warn({ err: error.cause, code: error.code }, error.message);
      void reply
        .code(error.statusCode)
        .headers(error.headers)
        .send(errorBody(error.message, error.code, error.explained));
      return;
    }
    const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
    if (known) {
      void reply.code(known.status).send(textBody(known, frameworkDetail(error, request, known)));
      return;
    }
    if (error.validation) {
      const body = error.validationContext === 'body';
      const { status, error: text, code } = body ? HTTP_ERRORS.invalidBody : HTTP_ERRORS.invalidRequest;
      // ajv's messages ("must be string") name the rule, never the value received.
      const first = error.validation[0];
      const detail =
        body && (typeof request.body !== 'object' || request.body === null || Array.isArray(request.body))
          ? bodyShapeDetail(request.body)
          : `The ${error.validationContext ?? 'request'}${first?.instancePath ?? ''} ${first?.message ?? 'is not acceptable'}.`;
      void reply.code(status).send(errorBody(text, code, { detail }));
      return;
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // A library's own client error (the reference page's files: a 403 for a path out of its
      // folder, a 416 for a range past the end): its status's reason phrase, never its message,
      // which may echo the request; the code is that phrase's snake case (`forbidden`).
      const reason = STATUS_CODES[status] ?? 'Bad Request';
      const detail = `${request.method} ${excerpt(request.url)} is refused: ${reason}.`;
      void reply.code(status).send(errorBody(reason, reason.toLowerCase().replace(/[^a-z0-9]+/g, '_'), { detail }));
      return;
    }
    if (isDependencyOutage(error)) {
      request.log.warn({ err: error }, 'a store is unreachable');
      void reply
        .code(HTTP_ERRORS.unavailable.status)
        .header('retry-after', '5')
        .send(textBody(HTTP_ERRORS.unavailable));
      return;
    }
    request.log.error({ err: error }, 'unhandled error');
    void reply.code(500).send(textBody(HTTP_ERRORS.internal, internalDetail(request)));
  });

  // A known path asked with another method is a 405 naming the methods it takes (RFC 9110 15.5.6); any other is a 404.
  const routes = routeTable(app);
  app.setNotFoundHandler((request, reply) => {
    const allowed = methodsOfPath(routes, request.url);
    if (allowed.length > 0) {
      const { status, error, code } = HTTP_ERRORS.methodNotAllowed;
      void reply
        .code(status)
        .header('allow', allowed.join(', '))
        .send(errorBody(error, code, { detail: `This path takes ${allowed.join(', ')}, not ${request.method}.` }));
      return;
    }
    void reply.code(404).send(
      textBody(HTTP_ERRORS.notFound, {
        detail: `No route serves ${request.method} ${excerpt(request.url.split('?')[0] ?? '')}; the API reference is at /docs.`,
      }),
    );
  });

  return app;
}
