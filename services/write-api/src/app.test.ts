import { buildProcessServer } from '@shortlink/http';
import { createWriteApi, SERVICE_NAME } from './app';

describe('write-api', () => {
  it('answers healthz', async () => {
    const app = await buildProcessServer(
      [createWriteApi({})],
      { name: SERVICE_NAME, trustProxy: false, logger: false },
      () => true,
    );
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', service: 'write-api' });
    await app.close();
  });
});
