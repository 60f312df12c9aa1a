import {
  API_ROUTE_TAGS,
  errorResponse,
  MALFORMED_REQUESTS,
  NO_SECURITY,
  RESPONSE_HEADERS,
  type ApiRoute,
} from '@shortlink/http';
import { REDIRECT_ERRORS, type RedirectError } from './redirect-errors';

/**
 * The redirector's routes: what app.ts registers and what the API document
 * shows, from the same objects. Its error texts are those of redirect-errors.ts.
 */

/** A prebuilt answer's `{"error", "code", "detail"}`. */
const textOf = (e: RedirectError): { error: string; code: string; detail: string } =>
  JSON.parse(e.body) as { error: string; code: string; detail: string };

const noStore = { type: 'string', enum: ['no-store'], description: 'Nobody keeps this answer.' } as const;

export const REDIRECT_ROUTE: ApiRoute = {
  method: 'GET',
  url: '/:slug',
  head: true,
  schema: {
    operationId: 'redirect',
    summary: 'Follow a short link',
    description:
      'The short URL itself: a `302` to the destination, with the request’s query merged into the destination’s (the short URL’s value wins a clash). Human clicks are counted after the answer; bots are not. No API key. `HEAD` answers the same, without a body. A browser page cannot read a redirect: “Try it out” here shows the `302` without its `Location` (open the short URL in a tab to follow it).',
    tags: [API_ROUTE_TAGS.redirects],
    security: NO_SECURITY,
    params: {
      type: 'object',
      properties: { slug: { type: 'string', description: 'The link’s slug.' } },
      required: ['slug'],
    },
    response: {
      302: {
        description: 'Found: go to the destination.',
        type: 'null',
        headers: {
          Location: {
            type: 'string',
            description:
              'The destination as the WHATWG URL Standard serialises it, with the request’s query merged in.',
          },
          'Cache-Control': {
            type: 'string',
            enum: ['private, no-store'],
            description: 'A cached redirect would be a click nobody counts.',
          },
          'X-Robots-Tag': { type: 'string', enum: ['noindex'] },
        },
      },
      400: errorResponse('The path could not be read.', MALFORMED_REQUESTS),
      404: {
        ...errorResponse(
          'No link has this slug (or it was deleted), or the path cannot be a slug.',
          { linkNotFound: textOf(REDIRECT_ERRORS.notFound) },
          { 'Cache-Control': noStore },
        ),
        'x-html-alternative': 'To a browser (an `Accept` that prefers `text/html`): a small page saying so.',
      },
      503: errorResponse(
        'The link cannot be looked up right now (its store is unreachable); it may exist.',
        { lookupFailed: textOf(REDIRECT_ERRORS.lookupFailed) },
        { 'Retry-After': RESPONSE_HEADERS.retryAfter(), 'Cache-Control': noStore },
      ),
    },
  },
};

export const REDIRECTOR_ROUTES: readonly ApiRoute[] = [REDIRECT_ROUTE];
