import { ERROR_DETAIL_PROPERTIES } from './api-route';
import { HTTP_ERRORS } from './http-errors';

/** The JSON body of every error response (see the error handler in server.ts). */
export const errorResponseSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, code: { type: 'string' }, ...ERROR_DETAIL_PROPERTIES },
  required: ['error', 'code', 'detail'],
} as const;

/** Errors of the HTTP layer that any request can meet, before its route runs. */
export const MALFORMED_REQUESTS = {
  malformedRequest: HTTP_ERRORS.malformedRequest,
  badUrl: HTTP_ERRORS.badUrl,
} as const;
