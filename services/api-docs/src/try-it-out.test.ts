import { buildProcessServer } from '@shortlink/http';
import { createMetricsRegistry } from '@shortlink/metrics';
import { createApiDocs } from './app';
import { API_ROUTES, API_VERSION } from './api-routes';
import { requestInterceptor, responseInterceptor } from './try-it-out';

describe('the reference page', () => {
  it('is titled after the project and sends its "Try it out" requests without following redirects', async () => {
    const app = await buildProcessServer(
      [createApiDocs({ routes: API_ROUTES, publicBaseUrl: 'https://sho.rt', version: API_VERSION })],
      { name: 'test', trustProxy: false, logger: false, metrics: createMetricsRegistry({ processMetrics: false }) },
      () => true,
    );
    const page = await app.inject({ url: '/docs/' });
    expect(page.body).toContain('<title>shortlink API</title>');
    expect(page.body).not.toContain('Swagger UI</title>');
    const script = await app.inject({ url: '/docs/static/swagger-initializer.js' });
    expect(script.statusCode).toBe(200);
    expect(script.body).toContain("request.redirect = 'manual'");
    expect(script.body).toContain('response.status = 302');
    expect(JSON.parse((await app.inject({ url: '/openapi.json' })).body).info.title).toBe('shortlink API');
    await app.close();
  });

  it('shows a redirect, which a page cannot read, as a 302 in words', () => {
    expect(requestInterceptor({})).toEqual({ redirect: 'manual' });
    const shown = responseInterceptor({ ok: false, status: 0, statusText: '' });
    expect(shown).toMatchObject({ ok: true, status: 302, statusText: 'Found' });
    expect(shown.text).toMatch(/open the short URL in a tab/);
    const created = { ok: true, status: 201, statusText: 'Created', text: '{}' };
    expect(responseInterceptor({ ...created })).toEqual(created);
  });
});
