/**
 * `npm run domains -- <command>`: the operator's view of branded domains, and
 * verification without DNS for installations that control their own
 * (docs/domains.md). Beside a running `npm start` as `npm run apikey` is.
 */
import { randomUUID } from 'node:crypto';
import { loadConfig, runCommand, UsageError } from '@shortlink/config';
import { openOperatorDatabase, operatorDatabaseEnv, OPERATOR_DATABASE_HELP } from '@shortlink/embedded';
import { postgresDomainStore } from './domain-store';
import { normaliseHostname } from './hostname';
import type { DomainRow } from './domain-resource';

const HELP = `usage: npm run domains -- verify <hostname> [--account <account-id>]
       npm run domains -- list [--json]

  verify    marks an account's claim of <hostname> verified without looking
            for its TXT record: for installations whose operator controls the
            DNS. With several accounts claiming it, --account names which.
  list      every domain of every account, pending and verified (--json: one
            JSON array)

${OPERATOR_DATABASE_HELP}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const command = {
  name: 'npm run domains --',
  help: HELP,
  allowPositionals: true,
  options: {
    account: { type: 'string' },
    json: { type: 'boolean' },
  },
} as const;

const record = (row: DomainRow) => ({
  hostname: row.hostname,
  accountId: row.accountId,
  status: row.verifiedAt === null ? 'pending' : 'verified',
  verifiedAt: row.verifiedAt?.toISOString() ?? null,
  verifiedBy: row.verifiedBy,
  createdAt: row.createdAt.toISOString(),
});

function table(rows: DomainRow[]): string {
  const lines = [['HOSTNAME', 'ACCOUNT', 'STATUS', 'VERIFIED BY', 'CREATED']];
  for (const r of rows.map(record)) {
    lines.push([r.hostname, r.accountId, r.status, r.verifiedBy ?? '-', r.createdAt.slice(0, 10)]);
  }
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines
    .map((l) =>
      l
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

runCommand(command, async ({ values, positionals }) => {
  const [action, ...rest] = positionals;
  let hostname = '';
  // Everything the command line can get wrong is refused before a store is opened.
  switch (action) {
    case 'verify': {
      if (!rest[0]) throw new UsageError('verify needs a hostname (see: npm run domains -- list)');
      if (rest.length > 1) throw new UsageError(`unexpected argument: ${rest[1]}`);
      const normalised = normaliseHostname(rest[0]);
      if (!normalised.ok)
        throw new UsageError(`not a hostname a domain can have: ${normalised.error.explained.detail}`);
      hostname = normalised.hostname;
      if (values.account && !UUID.test(values.account)) throw new UsageError(`not an account id: ${values.account}`);
      break;
    }
    case 'list':
      if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
      break;
    case undefined:
      throw new UsageError('a command is needed: verify or list');
    default:
      throw new UsageError(`unknown command: ${action}; the commands are verify and list`);
  }
  if (action !== 'list' && values.json) throw new UsageError('--json goes with list');
  if (action !== 'verify' && values.account) throw new UsageError('--account goes with verify');

  const env = loadConfig(operatorDatabaseEnv, process.env);
  const { pool, close } = await openOperatorDatabase(env, 'shortlink-domains');
  try {
    const store = postgresDomainStore(pool);
    if (action === 'list') {
      const rows = await store.all();
      if (values.json) console.log(JSON.stringify(rows.map(record), null, 2));
      else if (rows.length === 0) console.log('No domains. An account adds one with POST /api/v1/domains.');
      else console.log(table(rows));
      return;
    }
    const claims = await store.claims(hostname);
    const chosen = values.account ? claims.filter((c) => c.accountId === values.account) : claims;
    if (chosen.length === 0) {
      throw new UsageError(
        values.account
          ? `account ${values.account} has not claimed ${hostname}`
          : `no account has claimed ${hostname}: it is added with POST /api/v1/domains first`,
      );
    }
    if (chosen.length > 1) {
      throw new UsageError(
        `${chosen.length} accounts claim ${hostname} (${chosen.map((c) => c.accountId).join(', ')}): name one with --account`,
      );
    }
    const claim = chosen[0]!;
    // Nobody waits for the redirectors' confirmations here: a verified domain is served once they hear of it,
    // a moment after the commit (only a change that stops serving must be awaited, as the API's DELETE is).
    const verified = await store.markVerified(claim.accountId, hostname, 'operator', randomUUID());
    if (verified === 'taken') {
      const holder = claims.find((c) => c.verifiedAt !== null)?.accountId ?? 'another account';
      throw new UsageError(`${hostname} is verified by ${holder} already: it deletes the domain first`);
    }
    if (verified === null) throw new UsageError(`account ${claim.accountId} deleted ${hostname} meanwhile`);
    console.log(
      `Verified ${hostname} for account ${claim.accountId} (${verified.verifiedBy === 'operator' ? 'by the operator' : 'by DNS, earlier'}).`,
    );
  } finally {
    await close();
  }
});
