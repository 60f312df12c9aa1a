import type { ServiceModule } from '@shortlink/http';

export const SERVICE_NAME = 'write-api';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in as the service gains adapters
export interface WriteApiDeps {}

/** Accepts link creation and appends LinkCreated events to Kafka. */
export function createWriteApi(_deps: WriteApiDeps): ServiceModule {
  return { name: SERVICE_NAME };
}
