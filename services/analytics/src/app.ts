import type { ServiceModule } from '@shortlink/http';

export const SERVICE_NAME = 'analytics';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in as the service gains adapters
export interface AnalyticsDeps {}

/** Answers link analytics from ClickHouse aggregate tables. */
export function createAnalytics(_deps: AnalyticsDeps): ServiceModule {
  return { name: SERVICE_NAME };
}
