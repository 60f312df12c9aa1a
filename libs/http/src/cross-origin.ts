import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/**
 * What a page on another origin may send and read (CORS), in every process
 * that serves API routes. Origins are CORS_ORIGINS: none by default (no page
 * elsewhere may call the API), `*` for any. `*` is safe here because the API
 * authenticates with a bearer key a page must hold, never a cookie a browser
 * would add: credentials are never allowed.
 */
export const CROSS_ORIGIN = {
  methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
  exposedHeaders: [
    'Location',
    'Retry-After',
    'RateLimit-Limit',
    'RateLimit-Remaining',
    'RateLimit-Reset',
    'RateLimit-Policy',
    'Idempotent-Replayed',
  ],
  /** Seconds a browser may reuse a preflight's answer. */
  maxAgeSeconds: 600,
} as const;

/**
 * Answers preflights (`OPTIONS`, 204) and marks the answers of the routes
 * registered after it in `scope` for the allowed origins. An origin not
 * allowed gets no `Access-Control-Allow-Origin`, so its browser refuses the
 * answer to the page. Only the scope's routes pay its hook: never a redirect.
 */
export async function allowCrossOrigin(scope: FastifyInstance, origins: readonly string[]): Promise<void> {
  await scope.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: [...CROSS_ORIGIN.methods],
    allowedHeaders: [...CROSS_ORIGIN.allowedHeaders],
    exposedHeaders: [...CROSS_ORIGIN.exposedHeaders],
    maxAge: CROSS_ORIGIN.maxAgeSeconds,
    credentials: false,
    // A preflight without Origin is no browser's: answered as any other, not with a text 400.
    strictPreflight: false,
  });
}
