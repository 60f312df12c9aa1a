import { join } from 'node:path';
import { renderEntryPoint } from './entry-point';

/** Where docker compose's fleet profile keeps the entry point's configuration. */
export const COMPOSE_ENTRY_POINT = join('deploy', 'docker', 'haproxy.cfg');

/**
 * The entry point of `docker compose --profile fleet`: the fleet's own
 * configuration, with instances found through Docker's DNS (each service
 * scaled to several replicas answers under its name).
 */
export function composeEntryPoint(root: string): string {
  const replicas = (service: string, port: number, as = `${service} 4`, how = 'check') =>
    `server-template ${as} ${service}:${port} ${how} resolvers docker init-addr libc,none`;
  return renderEntryPoint({
    template: join(root, 'deploy', 'fleet', 'haproxy.cfg.template'),
    bind: ':8080',
    errorsDir: '/usr/local/etc/haproxy/errors',
    resolvers: 'resolvers docker\n  nameserver dns 127.0.0.11:53\n  hold valid 1s',
    servers: {
      // Checked, then the same replicas unchecked as backups: the entry point fails open (see the template).
      redirectors: [replicas('redirector', 3000), replicas('redirector', 3000, 'redirector-unchecked 4', 'backup')],
      writeApis: [replicas('write-api', 3000)],
      analytics: [replicas('analytics', 3000)],
      apiDocs: [replicas('api-docs', 3000)],
    },
  });
}
