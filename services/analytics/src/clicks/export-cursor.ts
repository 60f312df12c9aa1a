/**
 * Where an export stands: the sort key of the last row the client kept, `link_id.clicked_at_ms.event_id` (the
 * `cursor` column of every row). The next export starts strictly after it, so a cut-off export and its continuation
 * hold every click once. It names no account: a cursor only positions a read that is the caller's account's anyway.
 */
export interface ExportCursor {
  linkId: string;
  /** `clicked_at` in milliseconds since the epoch. */
  clickedAtMs: number;
  eventId: string;
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const CURSOR = new RegExp(`^(${UUID})\\.(0|[1-9][0-9]{0,14})\\.(${UUID})$`);

/** The `cursor` column, as ClickHouse computes it for each row of the export. */
export const CURSOR_COLUMN =
  "concat(toString(link_id), '.', toString(toUnixTimestamp64Milli(clicked_at)), '.', toString(event_id))";

export function encodeCursor(cursor: ExportCursor): string {
  return `${cursor.linkId}.${cursor.clickedAtMs}.${cursor.eventId}`;
}

/** null for anything that is not a cursor as the export writes one. */
export function decodeCursor(text: string): ExportCursor | null {
  const match = CURSOR.exec(text);
  if (!match?.[1] || !match[2] || !match[3]) return null;
  const clickedAtMs = Number(match[2]);
  if (!Number.isSafeInteger(clickedAtMs)) return null;
  return { linkId: match[1], clickedAtMs, eventId: match[3] };
}
