import { isIP } from 'node:net';
import { z } from 'zod';

/** `1.1.1.1`, `1.1.1.1:53`, `2606:4700::1111` or `[2606:4700::1111]:53`: what node's resolver takes. */
function isServer(text: string): boolean {
  const v6 = /^\[([^\]]+)\](?::([0-9]{1,5}))?$/.exec(text);
  if (v6) return isIP(v6[1]!) === 6 && (v6[2] === undefined || Number(v6[2]) <= 65535);
  if (isIP(text) !== 0) return true;
  const v4 = /^([^:]+):([0-9]{1,5})$/.exec(text);
  return v4 !== null && isIP(v4[1]!) === 4 && Number(v4[2]) <= 65535;
}

/** The operator's domain settings, read by the write API (docs/operators.md, docs/domains.md). */
export const domainsEnv = z.object({
  /**
   * The DNS servers a domain's TXT record is looked up on, comma-separated
   * addresses with an optional port. Unset or empty: the machine's own resolvers.
   */
  DNS_SERVERS: z.preprocess(
    (v) => (typeof v === 'string' ? v : ''),
    z
      .string()
      .transform((text) =>
        text
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      )
      .refine((servers) => servers.every(isServer), 'expected IP addresses with an optional port, comma-separated'),
  ),
  /** How long one try of a DNS lookup waits (two tries). */
  DNS_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(2000),
});
export type DomainsEnv = z.infer<typeof domainsEnv>;
