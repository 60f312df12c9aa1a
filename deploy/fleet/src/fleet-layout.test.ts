import { fleetLayout, type FleetOptions } from './fleet-layout';

const options: FleetOptions = {
  root: '/repo',
  stateDir: '/tmp/fleet',
  entryPort: 8080,
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/shortlink_fleet',
  redisUrl: 'redis://127.0.0.1:6379/1',
  visitorHashSecret: 'secret',
};
const webhookSettings = (o: FleetOptions, name: string) =>
  Object.fromEntries(
    Object.entries(fleetLayout(o).byName.get(name)?.env ?? {}).filter(([k]) => k.startsWith('WEBHOOKS_')),
  );

describe('the fleet’s webhook settings', () => {
  it('keeps webhooks to public https endpoints on the standard schedule by default', () => {
    // Given a fleet without local webhooks, when its write API and dispatcher are laid out
    for (const name of ['write-api-1', 'webhook-dispatcher'])
      // Then neither lets a webhook reach loopback, and the dispatcher keeps its own schedule
      expect(webhookSettings(options, name)).toEqual({
        WEBHOOKS_ALLOW_HTTP: 'false',
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'false',
      });
  });

  it('lets the chaos run’s write APIs and dispatcher reach a receiver on loopback, retried within seconds', () => {
    const local = { ...options, localWebhooks: { retrySchedule: '1,2,5' } };
    for (const name of ['write-api-1', 'write-api-2', 'webhook-dispatcher'])
      expect(webhookSettings(local, name)).toEqual({
        WEBHOOKS_ALLOW_HTTP: 'true',
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOKS_RETRY_SCHEDULE: '1,2,5',
      });
  });
});
