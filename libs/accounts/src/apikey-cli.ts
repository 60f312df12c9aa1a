/**
 * `npm run apikey -- <command>`: issues, lists and revokes API keys. `create`
 * prints the key as the last line of its output: shown once, stored only as a hash.
 */
import { loadConfig, runCommand, UsageError } from '@shortlink/config';
import { openOperatorDatabase, operatorDatabaseEnv, OPERATOR_DATABASE_HELP } from '@shortlink/embedded';
import { keyRecord, keyTable } from './key-table';
import { isPlan, PLAN_NAMES } from './plans';
import { KEY_CACHE_TTL_MS } from './postgres-authenticator';
import { addKeyToAccount, createAccountWithKey, listKeys, revokeKey } from './store';

const HELP = `usage: npm run apikey -- create --name <name> [--plan ${PLAN_NAMES.join('|')}]
       npm run apikey -- create --name <name> --account <account-id>
       npm run apikey -- list [--json]
       npm run apikey -- revoke <key-id>

  create    a new account (plan free unless --plan) and its first key; with
            --account, another key for that account, on the account's plan.
            The key is the last line printed: store it, it is not shown again.
  list      every key, without its secret (--json: one JSON array)
  revoke    stops a key working, within ${KEY_CACHE_TTL_MS / 1000} s (the API caches keys that long)

${OPERATOR_DATABASE_HELP}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const command = {
  name: 'npm run apikey --',
  help: HELP,
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    plan: { type: 'string' },
    account: { type: 'string' },
    json: { type: 'boolean' },
  },
} as const;

runCommand(command, async ({ values, positionals }) => {
  const [action, ...rest] = positionals;
  // Everything the command line can get wrong is refused before a store is opened.
  switch (action) {
    case 'create':
      if (!values.name) throw new UsageError('create needs --name <name>');
      if (values.account && values.plan) {
        throw new UsageError('--plan cannot be given with --account: the key takes the plan of its account');
      }
      if (values.account && !UUID.test(values.account)) throw new UsageError(`not an account id: ${values.account}`);
      if (values.plan && !isPlan(values.plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
      if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
      break;
    case 'list':
      if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
      break;
    case 'revoke':
      if (!rest[0]) throw new UsageError('revoke needs a key id (see: npm run apikey -- list)');
      if (!UUID.test(rest[0])) throw new UsageError(`not a key id: ${rest[0]} (see: npm run apikey -- list)`);
      if (rest.length > 1) throw new UsageError(`unexpected argument: ${rest[1]}`);
      break;
    case undefined:
      throw new UsageError('a command is needed: create, list or revoke');
    default:
      throw new UsageError(`unknown command: ${action}; the commands are create, list and revoke`);
  }
  if (action !== 'list' && values.json) throw new UsageError('--json goes with list');
  if (action !== 'create' && (values.name || values.plan || values.account)) {
    throw new UsageError('--name, --plan and --account go with create');
  }

  const env = loadConfig(operatorDatabaseEnv, process.env);
  const { pool, close } = await openOperatorDatabase(env, 'shortlink-apikey');
  try {
    if (action === 'create' && values.account) {
      const issued = await addKeyToAccount(pool, values.account, values.name!);
      if (!issued) throw new UsageError(`no account ${values.account}`);
      console.log(`New key ${issued.keyId} for account ${issued.account.id} (${issued.account.plan}).`);
      console.log('Store it now: it is not shown again.');
      console.log(issued.key);
    } else if (action === 'create') {
      const plan = values.plan ?? 'free';
      if (!isPlan(plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
      const issued = await createAccountWithKey(pool, { accountName: values.name!, keyName: values.name!, plan });
      console.log(
        `Account ${issued.account.id} "${issued.account.name}" (${issued.account.plan}), key ${issued.keyId}.`,
      );
      console.log('Store it now: it is not shown again.');
      console.log(issued.key);
    } else if (action === 'list') {
      const keys = await listKeys(pool);
      if (values.json) console.log(JSON.stringify(keys.map(keyRecord), null, 2));
      else if (keys.length === 0) console.log('No API keys. Create one with: npm run apikey -- create --name <name>');
      else console.log(keyTable(keys));
    } else {
      const keyId = rest[0]!;
      if (!(await revokeKey(pool, keyId))) throw new UsageError(`no active key ${keyId}`);
      console.log(
        `Revoked ${keyId}. The API refuses it within ${KEY_CACHE_TTL_MS / 1000} s (each API process caches a key that long).`,
      );
    }
  } finally {
    await close();
  }
});
