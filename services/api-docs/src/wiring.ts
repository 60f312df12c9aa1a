import type { ApiDocsDeps } from './app';
import { API_ROUTES, API_VERSION } from './api-routes';
import type { ApiDocsConfig } from './config';

/** What the API document takes of its settings (see config.ts). */
export type ApiDocsSettings = Pick<ApiDocsConfig, 'PUBLIC_BASE_URL'>;

/** The API document from its settings: what its own entry point and `npm start` both run. It opens no store. */
export function composeApiDocs(settings: ApiDocsSettings): ApiDocsDeps {
  return { routes: API_ROUTES, publicBaseUrl: settings.PUBLIC_BASE_URL, version: API_VERSION };
}
