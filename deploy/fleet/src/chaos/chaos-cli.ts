/**
 * `npm run chaos [-- fault ...]`: starts the fleet if it is not running,
 * drives traffic through its entry point and injects every fault (or the
 * named ones) in turn; writes deploy/fleet/results/chaos-latest.json and
 * exits non-zero if any fault broke a rule.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { openFleet } from '../fleet';
import { fleetLayout } from '../fleet-layout';
import { fleetOptionsFrom } from '../fleet-options';
import { formatReport } from './chaos-report';
import { runChaos } from './chaos-run';
import { FAULTS } from './faults';

const chaosEnv = z.object({
  CHAOS_REDIRECTS_PER_SECOND: z.coerce.number().int().min(1).default(2000),
  CHAOS_CREATES_PER_SECOND: z.coerce.number().int().min(0).default(50),
  CHAOS_CHANGES_PER_SECOND: z.coerce.number().int().min(0).default(20),
  CHAOS_STEADY_MS: z.coerce.number().int().min(0).default(5000),
  CHAOS_RESULTS_DIR: z.string().default(join(__dirname, '..', '..', 'results')),
});

async function main(): Promise<void> {
  const env = chaosEnv.parse(process.env);
  const names = process.argv.slice(2);
  const unknown = names.filter((n) => !FAULTS.some((f) => f.name === n));
  if (unknown.length > 0)
    throw new Error(`unknown fault ${unknown.join(', ')}; known: ${FAULTS.map((f) => f.name).join(', ')}`);
  const fleet = openFleet(fleetLayout(fleetOptionsFrom(process.env)));
  const report = await runChaos(fleet, {
    faults: names.length === 0 ? FAULTS : FAULTS.filter((f) => names.includes(f.name)),
    redirectsPerSecond: env.CHAOS_REDIRECTS_PER_SECOND,
    createsPerSecond: env.CHAOS_CREATES_PER_SECOND,
    changesPerSecond: env.CHAOS_CHANGES_PER_SECOND,
    linksPerPhase: 100,
    steadyMs: env.CHAOS_STEADY_MS,
    resultsDir: env.CHAOS_RESULTS_DIR,
    log: (message) => console.error(`[chaos] ${new Date().toISOString().slice(11, 19)} ${message}`),
  });
  console.log(formatReport(report));
  if (!report.ok) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
