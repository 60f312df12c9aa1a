/**
 * `npm run chaos [-- fault ...]`: starts the fleet if it is not running,
 * drives traffic through its entry point and injects every fault (or the
 * named ones) in turn; writes deploy/fleet/results/chaos-latest.json and
 * exits non-zero if any fault broke a rule.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { loadConfig, runCommand, UsageError } from '@shortlink/config';
import { openFleet } from '../fleet';
import { fleetLayout } from '../fleet-layout';
import { FLEET_SETTINGS, fleetOptionsFrom } from '../fleet-options';
import { DEFAULT_MIX } from './calibration';
import { formatReport } from './chaos-report';
import { runChaos } from './chaos-run';
import { FAULTS } from './faults';
import { CHAOS_WEBHOOK_RETRY_SCHEDULE, WEBHOOK_DISPATCHER_KILL } from './webhook-fault';

const chaosEnv = z.object({
  CHAOS_REDIRECTS_PER_SECOND: z.union([z.literal('auto'), z.coerce.number().int().min(1)]).default('auto'),
  CHAOS_LOAD_FRACTION: z.coerce.number().gt(0).max(1).default(0.5),
  CHAOS_CALIBRATION_MAX: z.coerce.number().int().min(100).default(12_000),
  CHAOS_CALIBRATION_STEP_MS: z.coerce.number().int().min(1000).default(10_000),
  CHAOS_CREATES_PER_SECOND: z.union([z.literal('auto'), z.coerce.number().min(0)]).default('auto'),
  CHAOS_CHANGES_PER_SECOND: z.union([z.literal('auto'), z.coerce.number().min(0)]).default('auto'),
  CHAOS_STEADY_MS: z.coerce.number().int().min(0).default(5000),
  CHAOS_RESULTS_DIR: z.string().default(join(__dirname, '..', '..', 'results')),
});

const HELP = `usage: npm run chaos [-- <fault> ...]

Starts the fleet if it is not running, drives traffic through its entry point and
injects every fault (or the ones named) in turn; writes the report to
CHAOS_RESULTS_DIR and exits non-zero if a fault broke a rule.

faults: ${FAULTS.map((f) => f.name).join(', ')}

settings (environment):
  CHAOS_REDIRECTS_PER_SECOND   redirect traffic: a number, or auto (the default): a share of
                               what the fleet sustains here, measured first at rising rates
  CHAOS_LOAD_FRACTION          with auto, the share offered (default 0.5)
  CHAOS_CALIBRATION_MAX        with auto, the highest rate tried (default 12000)
  CHAOS_CALIBRATION_STEP_MS    with auto, how long each rate is offered (default 10000)
  CHAOS_CREATES_PER_SECOND     link creations a second, or auto (the default): 1 for each 40 redirects
  CHAOS_CHANGES_PER_SECOND     link changes a second, or auto (the default): 1 for each 100 redirects
  CHAOS_STEADY_MS              steady traffic before and after each fault (default 5000)
  CHAOS_RESULTS_DIR            where the report goes (default deploy/fleet/results/)
${FLEET_SETTINGS.split('\n').slice(1).join('\n')}`;

runCommand(
  { name: 'npm run chaos --', help: HELP, allowPositionals: true, options: {} },
  async ({ positionals: names }) => {
    const unknown = names.filter((n) => !FAULTS.some((f) => f.name === n));
    if (unknown.length > 0)
      throw new UsageError(
        `unknown fault ${unknown.join(', ')}; the faults are ${FAULTS.map((f) => f.name).join(', ')}`,
      );
    const env = loadConfig(chaosEnv, process.env);
    // Webhooks to the webhook phase's receiver on loopback, retried within seconds (the fleet it starts keeps them).
    const fleet = openFleet(
      fleetLayout({
        ...fleetOptionsFrom(process.env),
        localWebhooks: { retrySchedule: CHAOS_WEBHOOK_RETRY_SCHEDULE },
      }),
    );
    const faults = names.length === 0 ? FAULTS : FAULTS.filter((f) => names.includes(f.name));
    // Told now, not after the phases before it: a running fleet keeps the settings it was started with.
    const stale = faults.includes(WEBHOOK_DISPATCHER_KILL)
      ? ['write-api-1', 'write-api-2', 'webhook-dispatcher'].filter((name) =>
          fleet.supervisor.runsWithOtherEnv(fleet.layout.byName.get(name)!),
        )
      : [];
    if (stale.length > 0)
      throw new UsageError(
        `${stale.join(', ')} run with other settings than the webhook phase needs ` +
          '(a fleet started by npm run fleet:up, or with other FLEET_* settings?); ' +
          `stop it (npm run fleet:down) and run npm run chaos again, or name the faults without ${WEBHOOK_DISPATCHER_KILL.name}`,
      );
    const report = await runChaos(fleet, {
      faults,
      redirectsPerSecond: env.CHAOS_REDIRECTS_PER_SECOND === 'auto' ? 0 : env.CHAOS_REDIRECTS_PER_SECOND,
      ...(env.CHAOS_REDIRECTS_PER_SECOND === 'auto'
        ? {
            calibrate: {
              fraction: env.CHAOS_LOAD_FRACTION,
              fromPerSecond: 250,
              maxPerSecond: env.CHAOS_CALIBRATION_MAX,
              stepMs: env.CHAOS_CALIBRATION_STEP_MS,
            },
          }
        : {}),
      // auto scales them with the redirects (DEFAULT_MIX), in the calibration's steps and in the rates offered.
      createsPerSecond: env.CHAOS_CREATES_PER_SECOND === 'auto' ? 0 : env.CHAOS_CREATES_PER_SECOND,
      changesPerSecond: env.CHAOS_CHANGES_PER_SECOND === 'auto' ? 0 : env.CHAOS_CHANGES_PER_SECOND,
      mix: {
        createsPerRedirect: env.CHAOS_CREATES_PER_SECOND === 'auto' ? DEFAULT_MIX.createsPerRedirect : null,
        changesPerRedirect: env.CHAOS_CHANGES_PER_SECOND === 'auto' ? DEFAULT_MIX.changesPerRedirect : null,
      },
      linksPerPhase: 100,
      steadyMs: env.CHAOS_STEADY_MS,
      resultsDir: env.CHAOS_RESULTS_DIR,
      log: (message) => console.error(`[chaos] ${new Date().toISOString().slice(11, 19)} ${message}`),
    });
    console.log(formatReport(report));
    if (!report.ok) process.exitCode = 1;
  },
);
