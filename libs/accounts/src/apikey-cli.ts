/**
 * `npm run apikey -- <command>`: issues and revokes API keys.
 *   create --name <name> [--plan free|pro]   a new account and its first key
 *   create --name <name> --account <id>      another key for an existing account
 *   list                                     every key, without the secret
 *   revoke <key-id>                          stops a key working (within the API's cache TTL)
 * `create` prints the key as the last line of its output: shown once, stored only as a hash.
 */
import { parseArgs } from 'node:util';
import { dataDirFrom, loadConfig, postgresEnv } from '@shortlink/config';
import { embeddedPostgresFor } from '@shortlink/embedded';
import { createPool, migrate, MIGRATIONS_DIR } from '@shortlink/postgres';
import { isPlan, PLAN_NAMES } from './plans';
import { addKeyToAccount, createAccountWithKey, listKeys, revokeKey } from './store';

const USAGE = `usage: npm run apikey -- create --name <name> [--plan ${PLAN_NAMES.join('|')}] [--account <account-id>]
       npm run apikey -- list
       npm run apikey -- revoke <key-id>`;

class UsageError extends Error {}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string', default: 'free' },
      account: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) throw new UsageError(USAGE);

  // The same store `npm start` uses: the configured Postgres, or else the embedded one under DATA_DIR
  // (through the running server when there is one, so it need not stop).
  const database = process.env.DATABASE_URL
    ? { url: loadConfig(postgresEnv, process.env).DATABASE_URL, close: async () => undefined }
    : await embeddedPostgresFor(dataDirFrom(process.env));
  const pool = createPool({ connectionString: database.url, max: 2, applicationName: 'shortlink-apikey' });
  try {
    await migrate(pool, MIGRATIONS_DIR);
    switch (command) {
      case 'create': {
        if (!values.name) throw new UsageError(`--name is required\n${USAGE}`);
        if (values.account) {
          if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(values.account)) {
            throw new UsageError(`not an account id: ${values.account}`);
          }
          const issued = await addKeyToAccount(pool, values.account, values.name);
          if (!issued) throw new UsageError(`no account ${values.account}`);
          console.log(`New key ${issued.keyId} for account ${issued.account.id} (${issued.account.plan}).`);
          console.log('Store it now: it is not shown again.');
          console.log(issued.key);
        } else {
          if (!isPlan(values.plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
          const issued = await createAccountWithKey(pool, {
            accountName: values.name,
            keyName: values.name,
            plan: values.plan,
          });
          console.log(
            `Account ${issued.account.id} "${issued.account.name}" (${issued.account.plan}), key ${issued.keyId}.`,
          );
          console.log('Store it now: it is not shown again.');
          console.log(issued.key);
        }
        return;
      }
      case 'list': {
        const keys = await listKeys(pool);
        if (keys.length === 0) console.log('No API keys. Create one with: npm run apikey -- create --name <name>');
        for (const k of keys) {
          const status = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active';
          console.log(
            [
              k.id,
              `${k.displayPrefix}…`,
              k.name,
              `account=${k.accountId}`,
              k.plan,
              k.createdAt.toISOString(),
              status,
            ].join('\t'),
          );
        }
        return;
      }
      case 'revoke': {
        const [keyId] = rest;
        if (!keyId) throw new UsageError(USAGE);
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(keyId)) {
          throw new UsageError(`not a key id: ${keyId} (see: npm run apikey -- list)`);
        }
        if (!(await revokeKey(pool, keyId))) throw new UsageError(`no active key ${keyId}`);
        console.log(`Revoked ${keyId}.`);
        return;
      }
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await pool.end();
    await database.close();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(e instanceof UsageError ? 2 : 1);
});
