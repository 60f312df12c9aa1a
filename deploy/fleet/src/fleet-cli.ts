/**
 * `npm run fleet:up` / `fleet:down` / `fleet:status`: the fleet on this
 * machine, out of real parts and without Docker (see fleet-layout.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPOSE_ENTRY_POINT, composeEntryPoint } from './compose-entry-point';
import { fleetDown, fleetStatus, fleetUp, openFleet } from './fleet';
import { fleetLayout } from './fleet-layout';
import { runCommand, UsageError } from '@shortlink/config';
import { FLEET_SETTINGS, fleetOptionsFrom } from './fleet-options';

const ACTIONS = ['up', 'down', 'status', 'compose-config'] as const;

const HELP = `usage: npm run fleet:up | fleet:down | fleet:status | fleet:compose-config

  fleet:up              starts the fleet on this machine (three Kafka nodes, the
                        services, HAProxy in front on FLEET_PORT); idempotent
  fleet:down            stops it; its data stays in FLEET_DIR
  fleet:status          each process, up (with its pid) or down
  fleet:compose-config  writes deploy/docker/haproxy.cfg (the compose fleet
                        profile's) from the local fleet's

${FLEET_SETTINGS}`;

runCommand(
  { name: 'npm run fleet:<command> --', help: HELP, allowPositionals: true, options: {} },
  async ({ positionals }) => {
    const [action, ...rest] = positionals;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number])) {
      throw new UsageError(
        action === undefined
          ? `a command is needed: ${ACTIONS.join(', ')}`
          : `unknown command: ${action}; the commands are ${ACTIONS.join(', ')}`,
      );
    }
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
    const fleet = openFleet(fleetLayout(fleetOptionsFrom(process.env)));
    const log = (message: string) => console.error(`[fleet] ${message}`);
    switch (action) {
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
        writeFileSync(
          join(fleet.layout.options.root, COMPOSE_ENTRY_POINT),
          composeEntryPoint(fleet.layout.options.root),
        );
        break;
    }
  },
);
