import { isIP } from 'node:net';
import { hostname as machineHostname, networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * A link must not point back at this service: a short URL whose destination
 * is a short URL of its own makes a loop, or hides a destination behind two
 * redirects. "This service" is every name it answers to, not one host string:
 * its public host, and on its public port every name of the machine itself
 * (`localhost`, loopback and unspecified addresses in any notation, the
 * machine's own interface addresses, its host name).
 */
export interface ServiceAddresses {
  publicHostname: string;
  publicPort: number;
  /** Literal addresses of this machine, canonical (RFC 5952 for IPv6). */
  localAddresses: ReadonlySet<string>;
  /**
   * The machine's host name, lower case, whole and as its first label: the
   * name its own resolver gives it (`/etc/hosts` maps it to loopback on most
   * systems), so `http://<hostname>:<port>/<slug>` came back here.
   */
  localNames: ReadonlySet<string>;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

const bareHostname = (url: URL) =>
  url.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[|\]$/g, '');
const portOf = (url: URL) => (url.port ? Number(url.port) : (DEFAULT_PORTS[url.protocol] ?? 0));

/** This service's names, from its public base URL and the machine's interfaces and host name (read once, at start). */
export function serviceAddresses(
  publicBaseUrl: string,
  interfaces = networkInterfaces(),
  hostname = machineHostname(),
): ServiceAddresses {
  const url = new URL(publicBaseUrl);
  const local = new Set<string>();
  for (const list of Object.values(interfaces)) {
    for (const info of list ?? []) {
      const canonical = canonicalIp(info.address);
      if (canonical) local.add(canonical);
    }
  }
  const name = hostname.toLowerCase().replace(/\.$/, '');
  const localNames = new Set(name === '' ? [] : [name, name.split('.')[0]!]);
  return { publicHostname: bareHostname(url), publicPort: portOf(url), localAddresses: local, localNames };
}

function canonicalIp(text: string): string | null {
  const bare = text.replace(/%.*$/, '');
  // isIP first: most hosts are names, and ipaddr.js's parse attempt costs more than the rest of a create's checks.
  if (isIP(bare) === 0) return null;
  return ipaddr.process(bare).toString();
}

function isMachineName(hostname: string, service: ServiceAddresses): boolean {
  if (hostname === 'localhost' || hostname.endsWith('.localhost') || service.localNames.has(hostname)) return true;
  const ip = canonicalIp(hostname);
  if (ip === null) return false;
  const range = ipaddr.parse(ip).range();
  return range === 'loopback' || range === 'unspecified' || service.localAddresses.has(ip);
}

/** True when `destination` (parsed by the WHATWG URL parser, as browsers do) reaches this service. */
export function pointsAtThisService(destination: URL, service: ServiceAddresses): boolean {
  const hostname = bareHostname(destination);
  const port = portOf(destination);
  if (hostname === service.publicHostname) {
    // http:// and https:// of the public host both reach it (the first usually redirects to the second).
    return port === service.publicPort || port === 80 || port === 443;
  }
  return port === service.publicPort && isMachineName(hostname, service);
}
