import { buildProcessServer } from '@shortlink/http';
import { createRedirector, SERVICE_NAME } from './app';

describe('redirector', () => {
  it('answers healthz', async () => {
    const app = await buildProcessServer(
      [createRedirector({})],
      { name: SERVICE_NAME, trustProxy: false, logger: false },
      () => true,
    );
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', service: 'redirector' });
    await app.close();
  });
});
