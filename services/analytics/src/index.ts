/** The service's package entry: its module, its wiring and what other packages may use. */
export * from './app';
export { ANALYTICS_ROUTES } from './analytics-routes';
export { composeAnalytics, type AnalyticsSettings, type AnalyticsStores } from './wiring';
export { analyticsConfig, type AnalyticsConfig } from './config';
export { DASHBOARD_PATHS } from './dashboard/dashboard-routes';
