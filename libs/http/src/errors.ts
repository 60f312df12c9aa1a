import type { HttpErrorText } from './http-errors';

/** What an error body adds to its text and code: one sentence saying what is wrong, and the field it is about. */
export interface ErrorDetail {
  detail: string;
  field?: string;
}

/**
 * An error a route throws on purpose: its status and text go to the client as
 * they are, with its detail and field when it has them. Anything else that
 * escapes a route is a bug and becomes a 500 with a generic text, logged in full.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code: string,
    /** What the body says when the route knows no more of the request (see `withDetail`). */
    readonly explained: Readonly<ErrorDetail>,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** The same error, saying what is wrong in this request. */
  withDetail(detail: string, field?: string): HttpError {
    const error = new HttpError(
      this.statusCode,
      this.message,
      this.code,
      { detail, ...(field === undefined ? {} : { field }) },
      this.headers,
    );
    error.cause = this.cause;
    return error;
  }
}

export interface ErrorBody extends ErrorDetail {
  error: string;
  code: string;
}

/** A request refused for what it holds: its status, the error's fixed text and code, and what is wrong in it. */
export interface Rejection extends ErrorBody {
  status: 400 | 403;
}

/** A rejection saying what is wrong in this request, about the part at `field` when it names one. */
export const explain = (rejection: Rejection, detail: string, field?: string): Rejection => ({
  ...rejection,
  detail,
  ...(field === undefined ? {} : { field }),
});

export function errorBody(error: string, code: string, explained: ErrorDetail): ErrorBody {
  return {
    error,
    code,
    detail: explained.detail,
    ...(explained.field === undefined ? {} : { field: explained.field }),
  };
}

/** The body of one of the HTTP layer's errors, with its own detail unless a closer one is given. */
export const textBody = (text: HttpErrorText, explained: ErrorDetail = { detail: text.detail }): ErrorBody =>
  errorBody(text.error, text.code, explained);

/** One of the HTTP layer's errors, to throw. */
export const httpError = (text: HttpErrorText, headers: Readonly<Record<string, string>> = {}): HttpError =>
  new HttpError(text.status, text.error, text.code, { detail: text.detail }, headers);

const EXCERPT_LENGTH = 40;
/** Controls (C0, DEL, C1), line and paragraph separators, and surrogates: shown as `\uXXXX`, never echoed. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/g;

/**
 * A received value as a detail shows it: quoted, at most 40 characters shown (then `…`),
 * control characters and lone surrogates written as `\uXXXX` (six of the 40), so that a detail
 * never carries more of a request than a reader needs, nor text a store or a
 * terminal cannot hold.
 */
export function excerpt(value: string): string {
  // The bound is on what is shown: an escaped character takes six of the 40, so three excerpts in one detail
  // stay a sentence, whatever the request held.
  let shown = '';
  let room = EXCERPT_LENGTH;
  let cut = false;
  for (const c of value) {
    const piece =
      c.length === 1 ? c.replace(UNPRINTABLE, (u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`) : c;
    const width = piece === c ? 1 : piece.length;
    if (width > room) {
      cut = true;
      break;
    }
    shown += piece;
    room -= width;
  }
  return `"${shown}${cut ? '…' : ''}"`;
}

/** What a JSON value is, for a detail: `a string`, `a number`, `an array`, `null`… */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${excerpt(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`;
  return typeof value;
}
