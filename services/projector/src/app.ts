import type { ServiceModule } from '@shortlink/http';

export const SERVICE_NAME = 'projector';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in as the service gains adapters
export interface ProjectorDeps {}

/** Consumes link and click events into Postgres and ClickHouse. */
export function createProjector(_deps: ProjectorDeps): ServiceModule {
  return { name: SERVICE_NAME };
}
