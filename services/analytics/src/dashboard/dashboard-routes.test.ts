import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '@shortlink/http';
import { readDashboardFiles } from './dashboard-files';
import { DASHBOARD_CSP, dashboardRoutes } from './dashboard-routes';

/** A dashboard built into a scratch folder: its page, its styles and a compiled script beside a declaration file. */
function builtDashboard(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-'));
  mkdirSync(join(dir, 'public'));
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'public', 'index.html'), '<!doctype html><title>d</title>');
  writeFileSync(join(dir, 'public', 'dashboard.css'), 'body{}');
  writeFileSync(join(dir, 'dist', 'main.js'), 'export {};');
  writeFileSync(join(dir, 'dist', 'main.d.ts'), 'export {};');
  return dir;
}

async function serve(dir: string) {
  const app = createServer({ logger: false, trustProxy: false });
  await app.register((instance) => dashboardRoutes(instance, readDashboardFiles(dir)));
  return app;
}

describe('the dashboard files', () => {
  it('are served with their media type under the strict Content-Security-Policy', async () => {
    const app = await serve(builtDashboard());
    for (const [url, type] of [
      ['/dashboard', 'text/html; charset=utf-8'],
      ['/dashboard/dashboard.css', 'text/css; charset=utf-8'],
      ['/dashboard/main.js', 'text/javascript; charset=utf-8'],
      // The chart library, from node_modules by the same map.
      ['/dashboard/uplot.js', 'text/javascript; charset=utf-8'],
      ['/dashboard/uplot.css', 'text/css; charset=utf-8'],
    ] as const) {
      const res = await app.inject({ method: 'GET', url });
      expect([url, res.statusCode, res.headers['content-type']]).toEqual([url, 200, type]);
      expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    expect(DASHBOARD_CSP).not.toMatch(/unsafe-inline|unsafe-eval/);
    await app.close();
  });

  it('are only the files built for it: anything else, a path out of the folder included, is a 404', async () => {
    const app = await serve(builtDashboard());
    for (const url of [
      '/dashboard/main.d.ts',
      '/dashboard/index.js',
      '/dashboard/..%2Fpackage.json',
      '/dashboard/%2e%2e%2f%2e%2e%2fpackage.json',
      '/dashboard/../public/index.html',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, 404]);
    }
    await app.close();
  });

  it('says it is not built rather than failing, when it is not', async () => {
    const app = await serve(mkdtempSync(join(tmpdir(), 'no-dashboard-')));
    const res = await app.inject({ method: 'GET', url: '/dashboard' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build');
    await app.close();
  });
});
