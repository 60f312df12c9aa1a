import { readFileSync, writeFileSync } from 'node:fs';
import type { ProcessSpec } from './supervisor';

export interface Upstream {
  name: string;
  port: number;
}

export interface EntryPointLayout {
  port: number;
  template: string;
  configFile: string;
  redirectors: readonly Upstream[];
  writeApis: readonly Upstream[];
  analytics: readonly Upstream[];
}

const servers = (upstreams: readonly Upstream[]) =>
  upstreams.map((u) => `  server ${u.name} 127.0.0.1:${u.port} check`).join('\n');

/** HAProxy (Debian's package) in the foreground under the supervisor, with the fleet's routes. */
export function entryPointProcess(layout: EntryPointLayout): ProcessSpec {
  return {
    name: 'entry',
    prepare: () =>
      writeFileSync(
        layout.configFile,
        readFileSync(layout.template, 'utf8')
          .replaceAll('@PORT@', String(layout.port))
          .replace('@REDIRECTORS@', servers(layout.redirectors))
          .replace('@WRITE_APIS@', servers(layout.writeApis))
          .replace('@ANALYTICS@', servers(layout.analytics)),
      ),
    command: 'haproxy',
    args: ['-db', '-f', layout.configFile],
    ready: async () => {
      // Ready once it routes to a healthy redirector: a missing slug answers the redirector's 404.
      const res = await fetch(`http://127.0.0.1:${layout.port}/fleet-readiness-probe`, { redirect: 'manual' });
      await res.arrayBuffer();
      return res.status === 404;
    },
    readyTimeoutMs: 30_000,
  };
}
