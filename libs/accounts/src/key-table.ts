import type { ApiKeyRow } from './store';

const COLUMNS = ['KEY ID', 'PREFIX', 'NAME', 'ACCOUNT', 'PLAN', 'CREATED', 'STATUS'] as const;

/** A key as `apikey list --json` prints it: never the secret, only the prefix shown in logs. */
export const keyRecord = (k: ApiKeyRow) => ({
  id: k.id,
  prefix: k.displayPrefix,
  name: k.name,
  accountId: k.accountId,
  accountName: k.accountName,
  plan: k.plan,
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt?.toISOString() ?? null,
});

/** `apikey list`: a header line and one aligned row per key, for a person to read. */
export function keyTable(keys: readonly ApiKeyRow[]): string {
  const rows = keys.map((k) => [
    k.id,
    `${k.displayPrefix}…`,
    k.name,
    k.accountId,
    k.plan,
    k.createdAt.toISOString(),
    k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active',
  ]);
  const all = [[...COLUMNS], ...rows];
  const widths = COLUMNS.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
