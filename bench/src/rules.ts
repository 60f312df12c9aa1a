import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { RulesProbe } from './rules-probe';

export interface RulesOptions {
  /** Redirects a case answers a round. */
  calls: number;
  rounds: number;
}

export interface RulesResult extends RulesProbe {
  /** What five rules add to a redirect (none holding, the country remembered), against a link without rules. */
  addedNs: number;
  /** The same with the country looked up in the GeoIP database on the redirect thread. */
  addedNsGeoIp: number;
}

/**
 * `rules`: a link with five rules against a link without, same process, same run (rules-probe.ts). Goal: five rules
 * cost a redirect at most 1 µs more. No stack: it is the redirect thread's arithmetic alone.
 */
export function benchRules(root: string, options: RulesOptions): Promise<RulesResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', join(root, 'bench/dist/rules-probe.js'), JSON.stringify(options)],
      { cwd: root },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`rules: ${stderr || error.message}`));
        const probe = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as RulesProbe;
        resolve({
          ...probe,
          addedNs: Math.round(probe.ns.fiveRulesNoneHolds - probe.ns.noRules),
          addedNsGeoIp: Math.round(probe.ns.fiveRulesNoneHoldsGeoIp - probe.ns.noRules),
        });
      },
    );
  });
}
