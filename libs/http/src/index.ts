export { createServer, type ServerOptions } from './server';
export { HttpError, errorBody, type ErrorBody } from './errors';
export { healthRoutes, type HealthOptions } from './health';
export {
  readinessChecker,
  type Dependency,
  type DependencyState,
  type ReadinessReport,
  type ReadinessOptions,
} from './readiness';
export { UNMATCHED_ROUTE } from './request-metrics';
export { serveUntilSignalled, type ServeOptions } from './serve';
export { runServices, buildProcessServer, type ServiceModule, type ProcessOptions } from './service';
export { runMain, processOptionsFrom, createLogger, type HttpProcessConfig } from './entry';
export { errorResponseSchema, linkResponseProperties, LINK_RESPONSE_FIELDS } from './schemas';
export { HTTP_ERRORS, type HttpErrorText } from './http-errors';
export { HTTP_LIMITS, type HttpLimits } from './http-limits';
export { isDependencyOutage } from './dependency-outage';
export { linkResource, type LinkResource, type LinkFacts } from './link-resource';
