/** The service's package entry: its module, its wiring and what other packages may use. */
export * from './app';
export { wireAnalytics, type AnalyticsResources } from './wiring';
