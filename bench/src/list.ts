import { percentiles, round } from './measure';
import type { BenchStack } from './stack';

export interface ListResult {
  links: number;
  otherLinks: number;
  loadSeconds: number;
  queries: Record<string, { p50Ms: number; p99Ms: number; maxMs: number; requests: number; listed: number }>;
}

/**
 * `GET /api/v1/links` for one account holding `links` links, beside another
 * account's `otherLinks`. The links go straight into the committed claims with
 * one INSERT … SELECT (the commit trigger gives each its list position, as a
 * create does); tags and destinations vary so that filters match many links or
 * a handful. Each query is then read sequentially, as a dashboard pages.
 */
export async function benchList(
  stack: BenchStack,
  options: { links: number; otherLinks: number; requests: number },
): Promise<ListResult> {
  const started = performance.now();
  const insert = (account: string, count: number, prefix: string) =>
    stack.pool.query(
      `INSERT INTO slug_claims (slug, link_id, account_id, destination_url, tag, created_at, state)
       SELECT $3 || i, gen_random_uuid(), $1,
              'https://' || (ARRAY['shop', 'blog', 'docs', 'news', 'www'])[1 + i % 5] || '.example.com/'
                || md5(i::text) || '?utm_campaign=c' || (i % 97),
              CASE WHEN i % 1000 = 0 THEN 'rare' ELSE (ARRAY['spring', 'summer', 'autumn', 'winter'])[1 + i % 4] END,
              now() - make_interval(secs => $2 - i), 'committed'
         FROM generate_series(1, $2::int) AS i`,
      [account, count, prefix],
    );
  await insert(stack.accountId, options.links, 'b-');
  await insert('00000000-0000-4000-8000-000000000000', options.otherLinks, 'o-');
  // The projection the search reads (migration 0009), as the link projector would fill it.
  await stack.pool.query(
    `INSERT INTO links (slug, link_id, account_id, destination_url, tag, created_at, event_id, source_partition, source_offset)
     SELECT slug, link_id, account_id, destination_url, tag, created_at, gen_random_uuid(), 0, list_seq
       FROM slug_claims WHERE slug LIKE 'b-%' OR slug LIKE 'o-%'`,
  );
  await stack.pool.query('VACUUM ANALYZE slug_claims');
  await stack.pool.query('VACUUM ANALYZE links');
  const loadSeconds = round((performance.now() - started) / 1000);

  const analytics = await stack.start('analytics');
  const page = async (query: string) => {
    const t = performance.now();
    const res = await fetch(`${analytics.url}/api/v1/links?${query}`, {
      headers: { authorization: `Bearer ${stack.key}` },
    });
    const body = (await res.json()) as { links?: { id: string }[]; nextCursor?: string | null };
    if (res.status !== 200 || !body.links) throw new Error(`list ${query}: HTTP ${res.status} ${JSON.stringify(body)}`);
    return { ms: performance.now() - t, body: body as { links: { id: string }[]; nextCursor: string | null } };
  };
  // A cursor half-way down the list: deep pages cost what the first one does.
  let deep = (await page('limit=100')).body;
  for (let i = 0; i < Math.min(50, Math.floor(options.links / 200)) && deep.nextCursor; i++) {
    deep = (await page(`limit=100&cursor=${deep.nextCursor}`)).body;
  }
  const rareText = (
    await stack.pool.query<{ d: string }>(`SELECT substr(md5('${Math.floor(options.links / 3)}'), 1, 10) AS d`)
  ).rows[0]?.d;
  const queries: Record<string, string> = {
    'first page (20)': '',
    'first page (100)': 'limit=100',
    'deep page (cursor)': `cursor=${deep.nextCursor ?? ''}`,
    'tag, common (1 in 4)': 'tag=spring',
    'tag, rare (1 in 1,000)': 'tag=rare',
    'search, common (1 in 5)': 'search=BLOG.example',
    'search, rare (1 link)': `search=${rareText}`,
    'search, 2 characters': 'search=c9',
    'search, no match': 'search=nothing-like-this',
  };
  const results: ListResult['queries'] = {};
  for (const [name, query] of Object.entries(queries)) {
    let listed = 0;
    for (let i = 0; i < Math.min(10, options.requests); i++) await page(query); // warm, as a live service is
    const samples: number[] = [];
    for (let i = 0; i < options.requests; i++) {
      const { ms, body } = await page(query);
      samples.push(ms);
      listed = body.links.length;
    }
    const p = percentiles(samples);
    results[name] = { p50Ms: p.p50, p99Ms: p.p99, maxMs: p.max, requests: p.n, listed };
  }
  await analytics.stop();
  return { links: options.links, otherLinks: options.otherLinks, loadSeconds, queries: results };
}
