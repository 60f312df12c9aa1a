export { addJsonBodyParser, createServer, type ServerOptions } from './server';
export {
  HttpError,
  errorBody,
  excerpt,
  explain,
  httpError,
  kindOf,
  textBody,
  type ErrorBody,
  type ErrorDetail,
  type Rejection,
} from './errors';
export { healthRoutes, HEALTH_ROUTE, type HealthOptions } from './health';
export {
  readinessChecker,
  readinessMetrics,
  readinessRoute,
  READY_ROUTE,
  type Dependency,
  type DependencyState,
  type ReadinessReport,
  type ReadinessOptions,
} from './readiness';
export { METRICS_ROUTE, metricsRoute, UNMATCHED_ROUTE } from './request-metrics';
export { serveUntilSignalled, SHUTDOWN_GRACE_MS, type ServeOptions } from './serve';
export {
  runServices,
  buildProcessServer,
  processRoutes,
  PROCESS_ROUTES,
  type ServiceModule,
  type ProcessOptions,
} from './service';
export {
  runMain,
  processOptionsFrom,
  createLogger,
  logFormatFor,
  type HttpProcessConfig,
  type LogFormat,
} from './entry';
export { errorResponseSchema, MALFORMED_REQUESTS } from './schemas';
export {
  API_KEY_SECURITY,
  NO_SECURITY,
  API_ROUTE_TAGS,
  errorResponse,
  ERROR_DETAIL_PROPERTIES,
  RESPONSE_HEADERS,
  servedSchema,
  type ApiRoute,
  type ErrorText,
  type JsonSchema,
} from './api-route';
export { HTTP_ERRORS, type HttpErrorText } from './http-errors';
export { HTTP_LIMITS, type HttpLimits } from './http-limits';
export { isDependencyOutage } from './dependency-outage';
export { answerWithin, DependencyTimeout } from './dependency-deadline';
export { headerLines } from './header-lines';
export { allowCrossOrigin, CROSS_ORIGIN } from './cross-origin';
