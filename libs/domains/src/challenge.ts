import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';

/**
 * The DNS ownership challenge (docs/domains.md): the account publishes a TXT
 * record `_shortlink-challenge.<hostname>` holding `shortlink-verify=<token>`,
 * the token drawn anew for each claim, so a record left behind by another
 * account's claim, or by an earlier claim of the same account, proves nothing.
 */
export const CHALLENGE_LABEL = '_shortlink-challenge';
export const CHALLENGE_PREFIX = 'shortlink-verify=';

export const challengeName = (hostname: string): string => `${CHALLENGE_LABEL}.${hostname}`;
export const challengeValue = (token: string): string => `${CHALLENGE_PREFIX}${token}`;

/** 128 random bits, base64url: unguessable, and short enough for every DNS provider's form. */
export const newChallengeToken = (): string => randomBytes(16).toString('base64url');

/** What DNS said of a TXT name: its records (each one's strings joined), none, or no answer. */
export type TxtAnswer = { kind: 'records'; values: string[] } | { kind: 'none' } | { kind: 'failed'; reason: string };

export type TxtLookup = (name: string) => Promise<TxtAnswer>;

/** Resolver answers that say the name or its TXT records do not exist: a known "no". */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

export interface TxtLookupOptions {
  /** `host`, `host:port` or `[v6]:port` (DNS_SERVERS); empty: the system's resolvers. */
  servers: readonly string[];
  /** Each try's timeout; two tries. */
  timeoutMs: number;
}

/**
 * TXT lookups through node's resolver (c-ares: no thread-pool slot, no
 * system cache). Whatever happens, it answers within two tries' time and a
 * bit: a resolver that never answers is a `failed`, never a hang.
 */
export function dnsTxtLookup(options: TxtLookupOptions): TxtLookup {
  const tries = 2;
  return async (name) => {
    const resolver = new Resolver({ timeout: options.timeoutMs, tries });
    if (options.servers.length > 0) resolver.setServers([...options.servers]);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<TxtAnswer>((resolve) => {
      timer = setTimeout(
        () => {
          resolver.cancel();
          resolve({ kind: 'failed', reason: 'ETIMEOUT' });
        },
        options.timeoutMs * (tries + 1),
      );
    });
    const lookup = resolver.resolveTxt(name).then(
      (records): TxtAnswer => ({ kind: 'records', values: records.map((chunks) => chunks.join('')) }),
      (err: unknown): TxtAnswer => {
        const code = (err as { code?: unknown }).code;
        if (typeof code === 'string' && ABSENT.has(code)) return { kind: 'none' };
        return { kind: 'failed', reason: typeof code === 'string' ? code : 'an unknown resolver error' };
      },
    );
    try {
      return await Promise.race([lookup, deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
}
