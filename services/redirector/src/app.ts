import type { ServiceModule } from '@shortlink/http';

export const SERVICE_NAME = 'redirector';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in as the service gains adapters
export interface RedirectorDeps {}

/** Answers GET /:slug with a 302 from an in-process cache and records clicks. */
export function createRedirector(_deps: RedirectorDeps): ServiceModule {
  return { name: SERVICE_NAME };
}
