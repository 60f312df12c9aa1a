/**
 * Every service's HTTP routes, as each registers them: what the API document
 * (`GET /openapi.json`) describes, in every process that serves it. A
 * composition root, like deploy/standalone's system.ts, so it may import the services.
 */
import type { ApiRoute } from '@shortlink/http';
import { ANALYTICS_ROUTES } from '@shortlink/service-analytics';
import { REDIRECTOR_ROUTES } from '@shortlink/service-redirector';
import { WRITE_API_ROUTES } from '@shortlink/service-write-api';

export const API_ROUTES: readonly ApiRoute[] = [...WRITE_API_ROUTES, ...ANALYTICS_ROUTES, ...REDIRECTOR_ROUTES];

/** The API's version in the document: the `/api/v1` of its paths. */
export const API_VERSION = '1';
