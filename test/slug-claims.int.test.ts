import { randomUUID } from 'node:crypto';
import { postgresClaimStore, type Claim, type ClaimStore } from '@shortlink/service-write-api';
import { openTestInfra, type TestInfra } from './support/link-system';

/**
 * The write API's claim store on the real Postgres, where concurrent claims
 * share one INSERT: the primary key must still give each slug to exactly one
 * claim, also when rivals for a slug land in the same statement.
 */
describe('slug claims in shared statements', () => {
  let infra: TestInfra;
  let store: ClaimStore;
  const account = randomUUID();

  beforeAll(async () => {
    infra = await openTestInfra();
    store = postgresClaimStore(infra.pool);
  });

  afterAll(async () => {
    await infra?.close();
  });

  const claimOf = (slug: string): Claim => ({
    slug,
    linkId: randomUUID(),
    accountId: account,
    destinationUrl: `https://example.com/${slug}`,
    tag: null,
    createdAt: new Date(),
  });

  it('gives a slug to exactly one of the rivals in one statement, and every free slug to its claim', async () => {
    // The first claim runs alone; everything sent while it runs shares the next statement.
    const first = store.claim(claimOf(`lead-${randomUUID().slice(0, 8)}`));
    const rivals = Array.from({ length: 6 }, () => claimOf('contested'));
    const loners = Array.from({ length: 4 }, (_, i) => claimOf(`free-${i}-${randomUUID().slice(0, 8)}`));
    const [lead, ...results] = await Promise.all([first, ...[...rivals, ...loners].map((c) => store.claim(c))]);
    expect(lead).toBe(true);
    const rivalResults = results.slice(0, rivals.length);
    expect(rivalResults.filter(Boolean)).toHaveLength(1);
    expect(results.slice(rivals.length)).toEqual([true, true, true, true]);

    // The one told it won is the one the table holds.
    const winner = rivals[rivalResults.indexOf(true)]!;
    const { rows } = await infra.pool.query<{ link_id: string }>('SELECT link_id FROM slug_claims WHERE slug = $1', [
      'contested',
    ]);
    expect(rows).toEqual([{ link_id: winner.linkId }]);

    // A later claim of a taken slug loses.
    expect(await store.claim(claimOf('contested'))).toBe(false);
  });

  it('commits claims in a shared statement, each only for its own link', async () => {
    const claims = Array.from({ length: 5 }, (_, i) => claimOf(`commit-${i}-${randomUUID().slice(0, 8)}`));
    for (const c of claims) expect(await store.claim(c)).toBe(true);
    await Promise.all([
      ...claims.map((c) => store.commit(c.slug, c.linkId)),
      // A commit naming another link's id changes nothing.
      store.commit(claims[0]!.slug, randomUUID()),
    ]);
    const { rows } = await infra.pool.query<{ state: string }>(
      'SELECT state FROM slug_claims WHERE slug = ANY($1::text[])',
      [claims.map((c) => c.slug)],
    );
    expect(rows.map((r) => r.state)).toEqual(Array(5).fill('committed'));
  });
});
