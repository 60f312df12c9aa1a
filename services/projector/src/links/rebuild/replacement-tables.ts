import type { Pool, PoolClient } from 'pg';
import type { ProjectionTables } from './write-folded-batch';

/** The projection's tables, as the migrations name them. */
export const PROJECTION: ProjectionTables = { links: 'links', previews: 'link_previews' };
/** Where a rebuild builds their replacements. */
export const REPLACEMENT: ProjectionTables = { links: 'links_rebuild', previews: 'link_previews_rebuild' };
/** Slugs under the "C" collation: what the rebuild's writes look rows up and detect conflicts by, until the swap. */
const LOAD_INDEX = 'links_rebuild_slug_c';

interface IndexPlan {
  /** The projection's index, and the constraint it backs (primary key or unique), if any. */
  name: string;
  constraint: { name: string; kind: 'PRIMARY KEY' | 'UNIQUE' } | null;
  /** Its name on the replacement until the swap, and the statement that builds it there. */
  temporaryName: string;
  build: string;
}

/**
 * New, empty tables shaped like the projection's (columns, defaults, checks,
 * grants; indexes as the live tables have them, whatever migrations added),
 * filled by the rebuild and then swapped in for the projection's in one
 * transaction. The `links` indexes are built after the bulk load (a trigram
 * GIN index built at once costs a fraction of keeping it up row by row);
 * `link_previews` is small and gets its indexes at once.
 */
export interface ReplacementTables {
  tables: ProjectionTables;
  /** Builds the `links` indexes, `concurrency` at a time, and refreshes the planner's statistics. */
  buildIndexes(concurrency: number): Promise<void>;
  /**
   * In a transaction on `client`: locks the projection's tables (a live
   * projector's writes and readers wait), runs `catchUp` (which must leave
   * nothing in the topic unapplied to the replacements, and stop writing
   * them), commits the writer's claims for links now projected, as the live
   * projector does, and puts the replacements in the projection's place.
   */
  swap(client: PoolClient, catchUp: () => Promise<void>, notifyChannel: string): Promise<void>;
  drop(): Promise<void>;
}

export async function createReplacementTables(pool: Pool): Promise<ReplacementTables> {
  await pool.query(`DROP TABLE IF EXISTS ${REPLACEMENT.links}, ${REPLACEMENT.previews}`);
  const linkIndexes = await planIndexes(pool, PROJECTION.links, REPLACEMENT.links);
  const previewIndexes = await planIndexes(pool, PROJECTION.previews, REPLACEMENT.previews);
  for (const table of ['links', 'previews'] as const) {
    await pool.query(`CREATE TABLE ${REPLACEMENT[table]} (LIKE ${PROJECTION[table]} INCLUDING ALL EXCLUDING INDEXES)`);
    await copyGrants(pool, PROJECTION[table], REPLACEMENT[table]);
  }
  await pool.query(`CREATE UNIQUE INDEX ${LOAD_INDEX} ON ${REPLACEMENT.links} (slug COLLATE "C")`);
  for (const index of previewIndexes) await pool.query(index.build);

  return {
    tables: REPLACEMENT,
    async buildIndexes(concurrency) {
      // The trigram indexes take longest: started first, they set the pace.
      const queue = [...linkIndexes].sort(
        (a, b) => Number(/USING gin/i.test(b.build)) - Number(/USING gin/i.test(a.build)),
      );
      await Promise.all(
        Array.from({ length: Math.max(1, concurrency) }, async () => {
          for (let index = queue.shift(); index; index = queue.shift()) await pool.query(index.build);
        }),
      );
      await pool.query(`ANALYZE ${REPLACEMENT.links}, ${REPLACEMENT.previews}`);
    },
    async swap(client, catchUp, notifyChannel) {
      await client.query('BEGIN');
      try {
        // A long reader would otherwise queue every later reader behind this lock.
        await client.query(`SET LOCAL lock_timeout = '5s'`);
        // The order the live preview statement takes them in, so the two never wait on each other.
        await client.query(`LOCK TABLE ${PROJECTION.previews}, ${PROJECTION.links} IN ACCESS EXCLUSIVE MODE`);
        await catchUp();
        await client.query(
          `WITH committed AS (
             UPDATE slug_claims AS c SET state = 'committed'
               FROM ${REPLACEMENT.links} AS l
              WHERE c.state = 'pending' AND l.slug COLLATE "C" = c.slug AND l.link_id = c.link_id
             RETURNING c.slug
           )
           SELECT pg_notify($1, slug) FROM committed`,
          [notifyChannel],
        );
        await client.query(`DROP TABLE ${PROJECTION.links}, ${PROJECTION.previews}`);
        await client.query(`DROP INDEX ${LOAD_INDEX}`);
        for (const table of ['links', 'previews'] as const) {
          await client.query(`ALTER TABLE ${REPLACEMENT[table]} RENAME TO ${PROJECTION[table]}`);
        }
        for (const [table, indexes] of [
          [PROJECTION.links, linkIndexes],
          [PROJECTION.previews, previewIndexes],
        ] as const) {
          for (const index of indexes) {
            await client.query(
              index.constraint
                ? `ALTER TABLE ${table} ADD CONSTRAINT ${ident(index.constraint.name)} ${index.constraint.kind} USING INDEX ${ident(index.temporaryName)}`
                : `ALTER INDEX ${ident(index.temporaryName)} RENAME TO ${ident(index.name)}`,
            );
          }
        }
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    },
    async drop() {
      await pool.query(`DROP TABLE IF EXISTS ${REPLACEMENT.links}, ${REPLACEMENT.previews}`);
    },
  };
}

/** Every index of `table` as a statement that builds it on `replacement` under a temporary name. */
async function planIndexes(pool: Pool, table: string, replacement: string): Promise<IndexPlan[]> {
  const { rows } = await pool.query<{ name: string; def: string; conname: string | null; contype: string | null }>(
    `SELECT ic.relname AS name, pg_get_indexdef(i.indexrelid) AS def, c.conname, c.contype
       FROM pg_index AS i
       JOIN pg_class AS ic ON ic.oid = i.indexrelid
       LEFT JOIN pg_constraint AS c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
      WHERE i.indrelid = $1::regclass
      ORDER BY ic.relname`,
    [table],
  );
  return rows.map((row) => {
    if (row.contype !== null && row.contype !== 'p' && row.contype !== 'u') {
      throw new Error(`cannot rebuild ${table}: its index ${row.name} backs a constraint of kind ${row.contype}`);
    }
    const shape = /^CREATE (UNIQUE )?INDEX (?:"(?:[^"]|"")+"|\S+) ON (?:ONLY )?\S+ (USING .+)$/s.exec(row.def);
    if (!shape) throw new Error(`cannot rebuild ${table}: unexpected index definition ${row.def}`);
    const temporaryName = `${REPLACEMENT_PREFIX}${row.name}`.slice(0, 63);
    return {
      name: row.name,
      constraint:
        row.conname === null ? null : { name: row.conname, kind: row.contype === 'p' ? 'PRIMARY KEY' : 'UNIQUE' },
      temporaryName,
      build: `CREATE ${shape[1] ?? ''}INDEX ${ident(temporaryName)} ON ${replacement} ${shape[2]}`,
    };
  });
}

const REPLACEMENT_PREFIX = 'rebuild_';

/** The privileges others hold on `table`, granted on `replacement` too: a swapped-in table must not lock anyone out. */
async function copyGrants(pool: Pool, table: string, replacement: string): Promise<void> {
  const { rows } = await pool.query<{ statement: string }>(
    `SELECT format('GRANT %s ON %I TO %s%s', a.privilege_type, $2::text,
                   CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END,
                   CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END) AS statement
       FROM pg_class AS t, aclexplode(t.relacl) AS a
      WHERE t.oid = $1::regclass AND a.grantee <> t.relowner`,
    [table, replacement],
  );
  for (const { statement } of rows) await pool.query(statement);
}

function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
