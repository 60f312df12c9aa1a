import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { subset, validRange } from 'semver';

/**
 * The Node versions package.json states are ones every installed dependency
 * supports: a dependency whose `engines.node` leaves some of them out (cookie@2
 * wants Node 22) fails here, not on a user's `npm install` with a warning.
 */
const ROOT = join(__dirname, '..');

/** Every installed package's name, version and `engines.node`, nested copies included. */
function installedEngines(dir: string, found: { id: string; node: string }[] = []): { id: string; node: string }[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      installedEngines(path, found);
      continue;
    }
    const manifest = join(path, 'package.json');
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: string;
        version?: string;
        engines?: { node?: unknown };
      };
      if (typeof pkg.engines?.node === 'string')
        found.push({ id: `${pkg.name}@${pkg.version}`, node: pkg.engines.node });
    }
    if (existsSync(join(path, 'node_modules'))) installedEngines(join(path, 'node_modules'), found);
  }
  return found;
}

describe('the engines field', () => {
  const stated = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines
    .node;

  it('is a valid range', () => {
    expect(validRange(stated)).not.toBeNull();
  });

  it('names only Node versions every installed dependency supports', () => {
    const packages = installedEngines(join(ROOT, 'node_modules'));
    expect(packages.length).toBeGreaterThan(100);
    const excluding = packages.filter((p) => validRange(p.node) !== null && !subset(stated, p.node));
    expect(excluding.map((p) => `${p.id} wants Node ${p.node}`)).toEqual([]);
  });
});
