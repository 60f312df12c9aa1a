import type { ClickHouseClient } from '@clickhouse/client';

const checks = new WeakMap<ClickHouseClient, () => Promise<void>>();

/** A readiness check of ClickHouse (its `/ping`); the same function for the same client, so it is checked once per probe. */
export function clickhouseReachable(client: ClickHouseClient): () => Promise<void> {
  let check = checks.get(client);
  if (!check) {
    check = async () => {
      const answer = await client.ping();
      if (!answer.success) throw answer.error;
    };
    checks.set(client, check);
  }
  return check;
}
