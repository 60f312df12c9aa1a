/** The service's package entry: its module, its wiring and what other packages may use. */
export * from './app';
export { buildApiDocument, OPENAPI_VERSION, type ApiDocumentOptions, type OpenApiDocument } from './api-document';
export { API_ROUTES, API_VERSION } from './api-routes';
export { composeApiDocs, type ApiDocsSettings } from './wiring';
export { apiDocsConfig, type ApiDocsConfig } from './config';
