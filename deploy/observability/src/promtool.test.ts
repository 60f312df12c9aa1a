import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { OBSERVABILITY, RULES_FILE, RULES_TEST_FILE } from './observability-queries';

/**
 * Prometheus's own checker on the checked-in configuration: Debian's
 * `prometheus` package (`.ci/run` installs it). Missing, these tests fail:
 * the files would otherwise go unchecked.
 */
const promtool = (...args: string[]) => {
  const run = spawnSync('promtool', args, { encoding: 'utf8', cwd: OBSERVABILITY });
  if (run.error) throw new Error(`promtool is missing (apt-get install prometheus): ${run.error.message}`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
};
const CONFIGS = join(OBSERVABILITY, 'prometheus');

describe('promtool', () => {
  it('checks the alert rules', () => {
    const { status, output } = promtool('check', 'rules', RULES_FILE);
    expect([status, output]).toEqual([0, expect.stringMatching(/SUCCESS: 14 rules found/)]);
  });

  it('passes the alert unit tests (input series and the alerts expected of them)', () => {
    const { status, output } = promtool('test', 'rules', RULES_TEST_FILE);
    expect([status, output]).toEqual([0, expect.stringContaining('SUCCESS')]);
  });

  it.each(['fleet.yml', 'standalone.yml'])('checks the scrape configuration %s and the rules it loads', (file) => {
    const { status, output } = promtool('check', 'config', join(CONFIGS, file));
    expect([status, output]).toEqual([0, expect.stringContaining('is valid prometheus config file syntax')]);
    expect(output).toContain('SUCCESS: 14 rules found');
  });

  it("checks the Kubernetes scrape configuration (with a static target where the build lacks Kubernetes discovery, as Debian's does)", () => {
    const file = join(CONFIGS, 'kubernetes.yml');
    const direct = promtool('check', 'config', file);
    if (direct.status === 0) return;
    expect(direct.output).toContain('field kubernetes_sd_configs not found');
    // Everything else, the relabelling and its regular expressions included, as Prometheus reads it.
    const config = parseYaml(readFileSync(file, 'utf8'));
    const [job] = config.scrape_configs;
    expect(job.kubernetes_sd_configs).toEqual([{ role: 'pod', namespaces: { names: ['shortlink'] } }]);
    delete job.kubernetes_sd_configs;
    job.static_configs = [{ targets: ['10.0.0.1:3000'] }];
    config.rule_files = [RULES_FILE];
    const dir = mkdtempSync(join(tmpdir(), 'promtool-'));
    try {
      writeFileSync(join(dir, 'kubernetes.yml'), stringify(config));
      const { status, output } = promtool('check', 'config', join(dir, 'kubernetes.yml'));
      expect([status, output]).toEqual([0, expect.stringContaining('is valid prometheus config file syntax')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
