/**
 * `npm run fleet:up` / `fleet:down` / `fleet:status`: the fleet on this
 * machine, out of real parts and without Docker (see fleet-layout.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPOSE_ENTRY_POINT, composeEntryPoint } from './compose-entry-point';
import { fleetDown, fleetStatus, fleetUp, openFleet } from './fleet';
import { fleetLayout } from './fleet-layout';
import { fleetOptionsFrom } from './fleet-options';

async function main(): Promise<void> {
  const fleet = openFleet(fleetLayout(fleetOptionsFrom(process.env)));
  const log = (message: string) => console.error(`[fleet] ${message}`);
  switch (process.argv[2]) {
    case 'up':
      await fleetUp(fleet, log);
      break;
    case 'down':
      await fleetDown(fleet, log);
      break;
    case 'status':
      for (const { name, pid } of fleetStatus(fleet))
        console.log(`${name.padEnd(20)} ${pid === null ? 'down' : `up (pid ${pid})`}`);
      break;
    case 'compose-config':
      writeFileSync(join(fleet.layout.options.root, COMPOSE_ENTRY_POINT), composeEntryPoint(fleet.layout.options.root));
      break;
    default:
      console.error('usage: fleet-cli up|down|status|compose-config');
      process.exitCode = 2;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
