import { z } from 'zod';
import { booleanFlag } from '@shortlink/config';
import { parseEncryptionKey } from './encryption-key';

/** The operator's webhook settings, read by the write API and the dispatcher alike (docs/operators.md). */
export const webhooksEnv = z.object({
  /** Lets webhook URLs use plain http. Local testing only: deliveries and their signatures travel in the clear. */
  WEBHOOKS_ALLOW_HTTP: booleanFlag.default(false),
  /** Lets webhook URLs name loopback, private, link-local and metadata addresses. Local testing only. */
  WEBHOOKS_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  /**
   * Base64 of 32 bytes: the key that seals signing secrets at rest. Unset or
   * empty: the installation generates one and keeps it in Postgres.
   */
  WEBHOOKS_ENCRYPTION_KEY: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .transform((text, ctx) => {
        const key = parseEncryptionKey(text);
        if (key === null) {
          ctx.addIssue({ code: 'custom', message: 'expected the base64 of 32 bytes (openssl rand -base64 32)' });
          return z.NEVER;
        }
        return key;
      })
      .optional(),
  ),
});
export type WebhooksEnv = z.infer<typeof webhooksEnv>;
