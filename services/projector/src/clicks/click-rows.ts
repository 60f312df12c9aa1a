import { EVENT_HEADERS, type LogRecord } from '@shortlink/event-log';
import { decodeClickRecord } from '@shortlink/events';
import { classifyUserAgent } from './user-agent';

/** A row of the ClickHouse `clicks` table. */
export interface ClickRow {
  event_id: string;
  link_id: string;
  account_id: string;
  slug: string;
  clicked_at: string;
  visitor_hash: string;
  referrer: string;
  country: string;
  device: string;
  browser: string;
  os: string;
  source_partition: number;
  source_offset: string;
  /** 'qr' for a scan of the link's QR code, 'link' otherwise (the event's `trigger`, absent for a link). */
  trigger: string;
  /** The position of the link's rule, and of its variant, that chose the destination; -1 for none. */
  rule: number;
  variant: number;
  /** The link's branded domain; '' for the installation's own (the event's `domain`, absent for it). */
  domain: string;
}

/** The columns a click row fills, in the order each row's values are sent: every field of ClickRow, once. */
export const CLICK_COLUMNS = Object.keys({
  event_id: true,
  link_id: true,
  account_id: true,
  slug: true,
  clicked_at: true,
  visitor_hash: true,
  referrer: true,
  country: true,
  device: true,
  browser: true,
  os: true,
  source_partition: true,
  source_offset: true,
  trigger: true,
  rule: true,
  variant: true,
  domain: true,
} satisfies Record<keyof ClickRow, true>) as [keyof ClickRow, ...(keyof ClickRow)[]];

/**
 * Rows as the text the ledger keeps for an insert (`click_insert_groups`):
 * a JSON array of rows, each the values in `CLICK_COLUMNS` order, as they
 * are sent to ClickHouse: two thirds of the text of an object a row.
 */
export function clickRowsText(rows: readonly ClickRow[]): string {
  return JSON.stringify(clickRowValues(rows));
}

/** Each row's values in `CLICK_COLUMNS` order: what an insert sends, and what the ledger keeps of it. */
export function clickRowValues(rows: readonly ClickRow[]): ClickRow[keyof ClickRow][][] {
  return rows.map((row) => CLICK_COLUMNS.map((column) => row[column]));
}

/** The rows `clickRowsText` wrote, field for field. */
export function clickRowsFromText(text: string): ClickRow[] {
  return (JSON.parse(text) as unknown[][]).map((values) => {
    const row = Object.fromEntries(CLICK_COLUMNS.map((column, i) => [column, values[i]])) as unknown as ClickRow;
    // Kept by a version before the column: every click then was a followed link.
    row.trigger ??= 'link';
    // Kept by a version before routing: no click then went by a rule or a variant.
    row.rule ??= -1;
    row.variant ??= -1;
    // Kept by a version before branded domains: every link then was on the installation's own.
    row.domain ??= '';
    return row;
  });
}

/** `YYYY-MM-DD hh:mm:ss.sss` in UTC, the form DateTime64(3, 'UTC') reads. */
function clickHouseTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * `clickedAt`: the click's instant in epoch milliseconds, as the redirector
 * recorded it. A refused line keeps its index and text, for the dead-letter topic.
 */
export type RowOutcome =
  { ok: true; row: ClickRow; clickedAt: number } | { ok: false; reason: string; line: number; text: string | null };

/**
 * Parses one record of the clicks topic at the boundary (one click a line,
 * see `click-records.ts` in @shortlink/events) and turns each click into a
 * fact row. A click's lineage is its record: partition and offset.
 */
export function clickRows(message: LogRecord, partition: number): RowOutcome[] {
  return decodeClickRecord(message.value).map(({ line, text, result }): RowOutcome => {
    if (!result.ok) return { ok: false, reason: `${result.reason}: ${result.detail}`, line, text };
    const { eventId, data } = result.event;
    const ua = classifyUserAgent(data.userAgent);
    return {
      ok: true,
      row: {
        event_id: eventId,
        link_id: data.linkId,
        account_id: data.accountId,
        slug: data.slug,
        clicked_at: clickHouseTime(data.clickedAt),
        visitor_hash: data.visitorHash,
        referrer: data.referrer,
        country: data.country,
        device: ua.device,
        browser: ua.browser,
        os: ua.os,
        source_partition: partition,
        source_offset: message.offset,
        trigger: data.trigger ?? 'link',
        rule: data.rule ?? -1,
        variant: data.variant ?? -1,
        domain: data.domain ?? '',
      },
      clickedAt: data.clickedAt,
    };
  });
}

/** How many clicks a record says it holds (its `event-count` header; 1 without one, as in v1). */
export function clicksInRecord(message: LogRecord): number {
  const header = message.headers?.[EVENT_HEADERS.count];
  const value = Array.isArray(header) ? header[0] : header;
  const count = value === undefined ? 1 : Number(value.toString());
  return Number.isSafeInteger(count) && count > 0 ? count : 1;
}
