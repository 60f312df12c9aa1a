import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import ts from 'typescript';
import { DASHBOARD_DIR, readDashboardFiles } from './dashboard-files';

/** The most JavaScript, gzipped, the dashboard may make a browser load: its own modules and its packages' together. */
const BUDGET_BYTES = 150 * 1024;

/**
 * The dashboard as `npm run build` emits it, without a build: each module of its sources compiled as tsc compiles it
 * (its own tsconfig), beside its pages, in a scratch folder.
 */
function builtDashboard(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-size-'));
  const { config } = ts.readConfigFile(join(DASHBOARD_DIR, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, DASHBOARD_DIR);
  mkdirSync(join(dir, 'dist'));
  const sources = readdirSync(join(DASHBOARD_DIR, 'src')).filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts'));
  for (const name of sources.filter((n) => !n.endsWith('.test.ts'))) {
    const source = readFileSync(join(DASHBOARD_DIR, 'src', name), 'utf8');
    const { outputText } = ts.transpileModule(source, { compilerOptions: options, fileName: name });
    writeFileSync(join(dir, 'dist', name.replace(/\.ts$/, '.js')), outputText);
  }
  cpSync(join(DASHBOARD_DIR, 'public'), join(dir, 'public'), { recursive: true });
  return dir;
}

it(`keeps every script the dashboard serves within ${BUDGET_BYTES / 1024} KB gzipped, all together`, () => {
  const files = readDashboardFiles(builtDashboard());
  const scripts = [...files].filter(([, file]) => file.mediaType.startsWith('text/javascript'));
  // The page's own modules and the chart library at least: a map that lost them would pass with nothing counted.
  expect(scripts.map(([name]) => name)).toEqual(expect.arrayContaining(['main.js', 'link-view.js', 'uplot.js']));
  const gzipped = scripts.reduce((sum, [, file]) => sum + gzipSync(file.body, { level: 9 }).length, 0);
  expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
});
