import { Resolver, type RecordWithTtl } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { LRUCache } from 'lru-cache';

export interface DestinationLookupOptions {
  /** How long one try waits for an answer (c-ares doubles it on each try). */
  timeoutMs: number;
  tries: number;
  /** Name servers (`host` or `host:port`); the system's (/etc/resolv.conf) if not given. Tests set their own. */
  servers?: readonly string[];
  /** An answer is kept for its records' TTL, at most this long (0: not kept). Default 5 minutes. */
  maxTtlMs?: number;
  /** A name that does not exist is known not to for this long (0: not kept). Default 30 s. */
  notFoundTtlMs?: number;
  /** Names whose answers are kept, at most. Default 10,000. */
  maxNames?: number;
}

/**
 * Within the fetch's 5 s, a name whose servers never answer is given up on
 * after about 4 s (two tries). Answers kept as long as their TTL says, up to
 * 5 minutes (what browsers keep); a name that does not exist, 30 s.
 */
export const DEFAULT_DESTINATION_LOOKUP = {
  timeoutMs: 1000,
  tries: 2,
  maxTtlMs: 5 * 60_000,
  notFoundTtlMs: 30_000,
  maxNames: 10_000,
} satisfies Required<Omit<DestinationLookupOptions, 'servers'>>;

/** RFC 6761: these names are the loopback, and never asked of a name server. */
const LOOPBACK_NAME = /^(.+\.)?localhost\.?$/i;

/**
 * The resolver's answers that say the name has no address, now or later: it
 * does not exist, holds no record of the type, or is not a name DNS can
 * carry (`a..b`, a label over 63 characters: the URL parser lets these through).
 */
const NO_ADDRESS = new Set(['ENOTFOUND', 'ENODATA', 'EBADNAME']);

type Address = { address: string; family: 4 | 6 };
/** One record type's answer for a name: its addresses, or the resolver's error code. */
type Answer = Address[] | string;

const lookupError = (code: string, hostname: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`DNS lookup of ${hostname} failed: ${code}`), { code, hostname, syscall: 'query' });

/**
 * The preview fetcher's DNS: c-ares on the event loop (A and AAAA, bounded by `timeoutMs` and `tries`), not
 * `dns.lookup`, whose getaddrinfo holds one of libuv's few pool threads for up to 10 s and cannot be abandoned, so a
 * few dead name servers would queue every other lookup behind them. Names are resolved by DNS only: /etc/hosts is not
 * read, except that `localhost` and its subdomains are the loopback (refused as any private address unless private
 * networks are allowed) (docs/decisions/0039-destination-lookups-on-the-event-loop.md).
 */
export function createDestinationLookup(given: DestinationLookupOptions): LookupFunction {
  const options = { ...DEFAULT_DESTINATION_LOOKUP, ...given };
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries });
  if (options.servers) resolver.setServers([...options.servers]);
  // What a name server said, by record type and name: a bulk import of links to a few sites asks each
  // site's name once per TTL rather than once per link. The answers are still checked on every
  // connection (request-filtering-agent), so keeping them opens no window.
  const answers = new LRUCache<string, Answer>({ max: Math.max(1, options.maxNames * 2) });
  const asking = new Map<string, Promise<Answer>>();

  /** One record type's answer: its addresses, or the resolver's error code; kept, and shared while asked. */
  function query(family: 4 | 6, hostname: string): Promise<Answer> {
    const key = `${family} ${hostname.toLowerCase()}`;
    const known = answers.get(key);
    if (known !== undefined) return Promise.resolve(known);
    const pending = asking.get(key);
    if (pending) return pending;
    const asked = new Promise<Answer>((resolve) => {
      const answered = (err: NodeJS.ErrnoException | null, records: RecordWithTtl[]) => {
        const answer: Answer = err
          ? (err.code ?? 'ESERVFAIL')
          : records.map(({ address }) => ({ address, family }) satisfies Address);
        const ttlMs = err
          ? NO_ADDRESS.has(err.code ?? '')
            ? options.notFoundTtlMs
            : 0
          : Math.min(options.maxTtlMs, 1000 * Math.min(...records.map((r) => r.ttl)));
        if (ttlMs > 0) answers.set(key, answer, { ttl: ttlMs });
        asking.delete(key);
        resolve(answer);
      };
      if (family === 4) resolver.resolve4(hostname, { ttl: true }, answered);
      else resolver.resolve6(hostname, { ttl: true }, answered);
    });
    asking.set(key, asked);
    return asked;
  }

  async function addresses(hostname: string, family: number): Promise<Address[]> {
    const literal = isIP(hostname);
    if (literal !== 0) return [{ address: hostname, family: literal as 4 | 6 }];
    // The IPv4 loopback unless only IPv6 is asked: `::1` falls in `::/96`, which the fetcher refuses whole.
    if (LOOPBACK_NAME.test(hostname))
      return [family === 6 ? { address: '::1', family: 6 } : { address: '127.0.0.1', family: 4 }];
    const families: (4 | 6)[] = family === 4 ? [4] : family === 6 ? [6] : [4, 6];
    const replies = await Promise.all(families.map((f) => query(f, hostname)));
    const found = replies.flatMap((a) => (typeof a === 'string' ? [] : a));
    if (found.length > 0) return found;
    const codes = replies.map((a) => (typeof a === 'string' ? a : 'ENODATA'));
    // The name does not exist, holds no address, or cannot be a name: it will not resolve on a later try either.
    if (codes.every((c) => NO_ADDRESS.has(c))) throw lookupError('ENOTFOUND', hostname);
    throw lookupError(codes.find((c) => !NO_ADDRESS.has(c)) ?? 'ESERVFAIL', hostname);
  }

  return (hostname, lookupOptions, callback) => {
    addresses(
      hostname,
      lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : Number(lookupOptions.family ?? 0),
    ).then(
      (found) => {
        if (lookupOptions.all) return callback(null, found);
        const first = found[0]!;
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, lookupOptions.all ? [] : '', 0),
    );
  };
}
