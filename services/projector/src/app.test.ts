import { buildProcessServer } from '@shortlink/http';
import { createProjector, SERVICE_NAME } from './app';

describe('projector', () => {
  it('answers healthz', async () => {
    const app = await buildProcessServer(
      [createProjector({})],
      { name: SERVICE_NAME, trustProxy: false, logger: false },
      () => true,
    );
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', service: 'projector' });
    await app.close();
  });
});
