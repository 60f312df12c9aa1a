import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { FoldedBatch, LinkRow } from './fold-link-events';

/** The tables a rebuild writes: the projection's own names, or the new tables that replace them. */
export interface ProjectionTables {
  links: string;
  previews: string;
}

/**
 * How new `links` rows travel: `copy` streams them into a temporary table
 * (COPY FROM STDIN, the cheapest way into Postgres) and inserts from there;
 * `json` sends them as one JSON parameter, for connections that cannot COPY
 * (the embedded mode's socket).
 */
export type CreationLoad = 'copy' | 'json';

const CREATION_COLUMNS =
  'slug, link_id, account_id, destination_url, tag, created_at, event_id, source_partition, source_offset, version, updated_at, deleted_at, routing';
const STAGING = 'links_rebuild_staging';

/**
 * A FoldedBatch as the text its statements take: what the decoding thread
 * hands the writers, so that the thread driving Postgres only sends it.
 */
export interface FoldedPayload {
  /** JSON arrays, or null when there is none of the kind. */
  changes: string | null;
  /** COPY text or a JSON array, as the load asks. */
  creations: string | null;
  previews: string | null;
  events: number;
}

export function serializeFoldedBatch(batch: FoldedBatch, load: CreationLoad): FoldedPayload {
  const { changes, creations, previews } = batch;
  return {
    changes: changes.length > 0 ? JSON.stringify(changes) : null,
    creations: creations.length === 0 ? null : load === 'copy' ? copyText(creations) : JSON.stringify(creations),
    previews: previews.length > 0 ? JSON.stringify(previews) : null,
    events: batch.events,
  };
}

/**
 * Writes a folded batch in one transaction of three set-based statements, in the order the fold requires: changes to
 * existing rows, new rows, previews. They keep the live projector's guards, so a batch applied twice, or a replayed
 * stretch of the topic, changes nothing. Slugs compare under the "C" collation (equality is the same bytes under any
 * deterministic collation), matching the "C" index the rebuild loads through.
 */
export async function writeFoldedPayload(
  client: PoolClient,
  tables: ProjectionTables,
  payload: FoldedPayload,
  load: CreationLoad,
): Promise<void> {
  const { changes, creations, previews } = payload;
  if (changes === null && creations === null && previews === null) return;
  await client.query('BEGIN');
  try {
    if (changes !== null) await applyChanges(client, tables, changes);
    if (creations !== null) {
      if (load === 'copy') await copyCreations(client, tables, creations);
      else await insertCreations(client, tables, creations);
    }
    if (previews !== null) await upsertPreviews(client, tables, previews);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/** ChangeRun's rule: only records newer than the row apply; fields from the last update and delete among them. */
async function applyChanges(client: PoolClient, { links }: ProjectionTables, json: string): Promise<void> {
  await client.query(
    `UPDATE ${links} AS l SET
       destination_url = CASE WHEN c."updateVersion" > l.version THEN c."destinationUrl" ELSE l.destination_url END,
       tag = CASE WHEN c."updateVersion" > l.version THEN c.tag ELSE l.tag END,
       routing = CASE WHEN c."routingVersion" > l.version THEN c.routing ELSE l.routing END,
       updated_at = c."occurredAt",
       deleted_at = CASE WHEN c."deleteVersion" > l.version THEN c."deletedAt" ELSE l.deleted_at END,
       version = c.version, event_id = c."eventId", source_partition = c.partition, source_offset = c."offset"
     FROM json_to_recordset($1::json) AS c(slug text, "linkId" uuid, version integer, "occurredAt" timestamptz,
            "eventId" uuid, partition integer, "offset" bigint, "updateVersion" integer, "destinationUrl" text,
            tag text, "deleteVersion" integer, "deletedAt" timestamptz, "routingVersion" integer, routing jsonb)
     WHERE l.slug COLLATE "C" = c.slug AND l.link_id = c."linkId" AND l.version < c.version`,
    [json],
  );
}

/** As the live INSERT: a slug (or link, or event) already there keeps its row. */
async function copyCreations(client: PoolClient, { links }: ProjectionTables, text: string): Promise<void> {
  await client.query(`CREATE TEMP TABLE ${STAGING} (LIKE ${links} INCLUDING DEFAULTS) ON COMMIT DROP`);
  const copy = client.query(copyFrom(`COPY ${STAGING} (${CREATION_COLUMNS}) FROM STDIN`));
  // One write of the whole batch: a stream of small chunks cost more than the rows themselves.
  await finished(copy.end(text));
  await client.query(
    `INSERT INTO ${links} (${CREATION_COLUMNS}) SELECT ${CREATION_COLUMNS} FROM ${STAGING} ON CONFLICT DO NOTHING`,
  );
}

async function insertCreations(client: PoolClient, { links }: ProjectionTables, json: string): Promise<void> {
  await client.query(
    `INSERT INTO ${links} (${CREATION_COLUMNS})
     SELECT slug, "linkId", "accountId", "destinationUrl", tag, "createdAt", "eventId", partition, "offset", version,
            "updatedAt", "deletedAt", routing
       FROM json_to_recordset($1::json) AS r(slug text, "linkId" uuid, "accountId" uuid, "destinationUrl" text,
            tag text, "createdAt" timestamptz, "eventId" uuid, partition integer, "offset" bigint, version integer,
            "updatedAt" timestamptz, "deletedAt" timestamptz, routing jsonb)
     ON CONFLICT DO NOTHING`,
    [json],
  );
}

/** As the live upsert; an outcome without its destination takes the link's, as the rows stand now. */
async function upsertPreviews(client: PoolClient, { links, previews }: ProjectionTables, json: string) {
  await client.query(
    `INSERT INTO ${previews} AS p (link_id, status, title, description, image, final_url, reason, occurred_at,
                                   event_id, link_version, destination_url)
     SELECT r."linkId", r.status, r.title, r.description, r.image, r."finalUrl", r.reason, r."occurredAt",
            r."eventId", r."linkVersion",
            COALESCE(r."destinationUrl",
                     (SELECT l.destination_url FROM ${links} AS l
                       WHERE l.slug COLLATE "C" = r.slug AND l.link_id = r."linkId"))
       FROM json_to_recordset($1::json) AS r("linkId" uuid, slug text, status text, title text, description text,
            image text, "finalUrl" text, reason text, "occurredAt" timestamptz, "eventId" uuid,
            "linkVersion" integer, "destinationUrl" text)
     ON CONFLICT (link_id) DO UPDATE SET
       status = EXCLUDED.status, title = EXCLUDED.title, description = EXCLUDED.description,
       image = EXCLUDED.image, final_url = EXCLUDED.final_url, reason = EXCLUDED.reason,
       occurred_at = EXCLUDED.occurred_at, event_id = EXCLUDED.event_id,
       link_version = EXCLUDED.link_version, destination_url = EXCLUDED.destination_url
     WHERE (p.link_version, p.occurred_at) < (EXCLUDED.link_version, EXCLUDED.occurred_at)`,
    [json],
  );
}

/** Rows in COPY's text format. */
function copyText(rows: LinkRow[]): string {
  let text = '';
  for (const r of rows) {
    text +=
      `${r.slug}\t${r.linkId}\t${r.accountId}\t${copyField(r.destinationUrl)}\t${copyField(r.tag)}\t` +
      `${r.createdAt}\t${r.eventId}\t${r.partition}\t${r.offset}\t${r.version}\t` +
      `${copyField(r.updatedAt)}\t${copyField(r.deletedAt)}\t` +
      `${copyField(r.routing === null ? null : JSON.stringify(r.routing))}\n`;
  }
  return text;
}

const COPY_SPECIAL = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A field in COPY's text format: `\N` for null, and the four characters it treats specially escaped. */
export function copyField(value: string | null): string {
  if (value === null) return '\\N';
  return value.replace(COPY_SPECIAL, (c) => COPY_ESCAPES[c] ?? c);
}
