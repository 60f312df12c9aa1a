import type { LogFormat } from '@shortlink/http';

/** What `npm start` tells a person once it is healthy. */
export interface StartFacts {
  /** Where this process answers: `http://localhost:3000`. */
  url: string;
  /** The embedded mode's data directory (absolute); absent on servers. */
  dataDir?: string;
}

/** The pages a person opens first, by path. A page the process serves is one entry here. */
const PAGES: readonly { label: string; path: string }[] = [
  { label: 'dashboard', path: '/dashboard' },
  { label: 'API reference', path: '/docs' },
];

/** The banner: where it runs, what to open, how to get a key, where the data is. */
export function startBanner(facts: StartFacts): string {
  const rows: [string, string][] = [
    ...PAGES.map((page): [string, string] => [page.label, `${facts.url}${page.path}`]),
    ['create a key', 'npm run apikey -- create --name me --plan pro'],
  ];
  if (facts.dataDir !== undefined) rows.push(['data', `${facts.dataDir} (embedded mode)`]);
  rows.push(['stop', 'Ctrl-C']);
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    `shortlink is ready at ${facts.url}`,
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
  ].join('\n');
}

/** A banner is for a person at a terminal: not in JSON logs, not in a file or a pipe. */
export const showsBanner = (logFormat: LogFormat | undefined, stderrIsTerminal: boolean): boolean =>
  logFormat !== 'json' && stderrIsTerminal;

/** The URL a browser on this machine opens for a server bound to `host`:`port`. */
export function localUrl(host: string, port: number): string {
  const name =
    host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return new URL(`http://${name}:${port}`).origin;
}
