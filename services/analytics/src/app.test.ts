import { buildProcessServer } from '@shortlink/http';
import { createAnalytics, SERVICE_NAME } from './app';

describe('analytics', () => {
  it('answers healthz', async () => {
    const app = await buildProcessServer(
      [createAnalytics({})],
      { name: SERVICE_NAME, trustProxy: false, logger: false },
      () => true,
    );
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', service: 'analytics' });
    await app.close();
  });
});
