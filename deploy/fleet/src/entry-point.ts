import { readFileSync, writeFileSync } from 'node:fs';
import type { ProcessSpec } from './supervisor';

export interface Upstream {
  name: string;
  port: number;
}

/** What differs between the places the entry point runs: where it listens and how it finds the instances. */
export interface EntryPointConfig {
  template: string;
  bind: string;
  /** HAProxy error pages in the API's JSON error shape. */
  errorsDir: string;
  /** A `resolvers` section, where instances are found by DNS (docker compose). */
  resolvers?: string;
  servers: { redirectors: string[]; writeApis: string[]; analytics: string[]; apiDocs: string[] };
}

/** The one HAProxy configuration, for the local fleet and for docker compose alike. */
export function renderEntryPoint(config: EntryPointConfig): string {
  const lines = (servers: string[]) => servers.map((s) => `  ${s}`).join('\n');
  return readFileSync(config.template, 'utf8')
    .replace('@RESOLVERS@\n', config.resolvers ? `${config.resolvers.trimEnd()}\n\n` : '')
    .replaceAll('@BIND@', config.bind)
    .replaceAll('@ERRORS@', config.errorsDir)
    .replace('@REDIRECTORS@', lines(config.servers.redirectors))
    .replace('@WRITE_APIS@', lines(config.servers.writeApis))
    .replace('@ANALYTICS@', lines(config.servers.analytics))
    .replace('@API_DOCS@', lines(config.servers.apiDocs));
}

export interface EntryPointLayout {
  port: number;
  template: string;
  errorsDir: string;
  configFile: string;
  redirectors: readonly Upstream[];
  writeApis: readonly Upstream[];
  analytics: readonly Upstream[];
  apiDocs: readonly Upstream[];
}

const local = (upstreams: readonly Upstream[]) => upstreams.map((u) => `server ${u.name} 127.0.0.1:${u.port} check`);
/** The redirectors again, unchecked, as backups: the entry point fails open (see the template). */
const unchecked = (upstreams: readonly Upstream[]) =>
  upstreams.map((u) => `server ${u.name}-unchecked 127.0.0.1:${u.port} backup`);

/** HAProxy (Debian's package) in the foreground under the supervisor, with the fleet's routes. */
export function entryPointProcess(layout: EntryPointLayout): ProcessSpec {
  return {
    name: 'entry',
    prepare: () =>
      writeFileSync(
        layout.configFile,
        renderEntryPoint({
          template: layout.template,
          bind: `127.0.0.1:${layout.port}`,
          errorsDir: layout.errorsDir,
          servers: {
            redirectors: [...local(layout.redirectors), ...unchecked(layout.redirectors)],
            writeApis: local(layout.writeApis),
            analytics: local(layout.analytics),
            apiDocs: local(layout.apiDocs),
          },
        }),
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
