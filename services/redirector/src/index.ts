/** The service's package entry: its module, its wiring and what other packages may use. */
export * from './app';
export { REDIRECTOR_ROUTES } from './redirector-routes';
export { BROWSER_PAGE_PATHS } from './browser-pages';
export { composeRedirector, type RedirectorSettings, type RedirectorStores } from './wiring';
export { redirectorConfig, redirectorEnv, type RedirectorConfig } from './config';
export { LinkCache } from './link-cache';
export type { ResolvedLink, LookupLink } from './resolved-link';
export { postgresLookup } from './lookup';
export { workerClickSink, type WorkerClickSinkOptions } from './clicks/worker-click-sink';
export type { ClickSink } from './clicks/click-sink';
export { clickRecords } from './clicks/click-records-appender';
export { eventLinesOf, type ClickEventLines } from './clicks/click-event';
export type { RawClick } from './clicks/raw-click';
export { clickEventId, clickEventIds } from './clicks/click-event-id';
