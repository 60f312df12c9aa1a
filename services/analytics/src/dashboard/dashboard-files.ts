import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

/** Where the dashboard's pages and the scripts `npm run build` compiled for them are. */
export const DASHBOARD_DIR = join(__dirname, '..', '..', 'dashboard');

const MEDIA_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Files of npm packages the page loads, by the name it asks for them under: served from `node_modules` by the same
 * map as the page's own files, so nothing is fetched from another site (decision 0067).
 */
export const DASHBOARD_PACKAGE_FILES: Readonly<Record<string, string>> = {
  'uplot.js': 'uplot/dist/uPlot.esm.js',
  'uplot.css': 'uplot/dist/uPlot.min.css',
};

export interface DashboardFile {
  body: Buffer;
  mediaType: string;
}

/**
 * Every file the dashboard serves, read once at start: its pages (`public/`), its compiled scripts (`dist/*.js`)
 * and its packages' files, by name. A request names a file of this map or gets a 404, so no path a visitor sends
 * ever reaches the file system.
 */
export function readDashboardFiles(
  dir = DASHBOARD_DIR,
  packageFiles = DASHBOARD_PACKAGE_FILES,
): ReadonlyMap<string, DashboardFile> {
  const files = new Map<string, DashboardFile>();
  const add = (folder: string, keep: (name: string) => boolean) => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return; // Not built yet: the dashboard answers that it is missing, the API serves on.
    }
    for (const name of names.filter(keep)) {
      const mediaType = MEDIA_TYPES[extname(name)];
      if (mediaType) files.set(name, { body: readFileSync(join(folder, name)), mediaType });
    }
  };
  add(join(dir, 'public'), () => true);
  add(join(dir, 'dist'), (name) => name.endsWith('.js'));
  for (const [name, file] of Object.entries(packageFiles)) {
    const mediaType = MEDIA_TYPES[extname(name)];
    if (mediaType) files.set(name, { body: readFileSync(require.resolve(file)), mediaType });
  }
  return files;
}
