/** The JSON body of every error response (see the error handler in server.ts). */
export const errorResponseSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, code: { type: 'string' } },
  required: ['error', 'code'],
} as const;
