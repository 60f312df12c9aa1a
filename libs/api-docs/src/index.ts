export { createApiDocs, SERVICE_NAME, type ApiDocsDeps } from './api-docs';
export { buildApiDocument, OPENAPI_VERSION, type ApiDocumentOptions, type OpenApiDocument } from './api-document';
