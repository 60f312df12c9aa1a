/**
 * An error a route throws on purpose: its status and text go to the client as
 * they are. Anything else that escapes a route is a bug and becomes a 500 with a
 * generic text, logged in full.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export interface ErrorBody {
  error: string;
  code: string;
}

export function errorBody(error: string, code: string): ErrorBody {
  return { error, code };
}
