import type { LogRecord } from '@shortlink/kafka';
import { clickEvent, decodeEvent } from '@shortlink/events';
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
}

/** `YYYY-MM-DD hh:mm:ss.sss` in UTC, the form DateTime64(3, 'UTC') reads. */
function clickHouseTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** `clickedAt`: the click's instant in epoch milliseconds, as the redirector recorded it. */
export type RowOutcome = { ok: true; row: ClickRow; clickedAt: number } | { ok: false; reason: string };

/** Parses one message of the clicks topic at the boundary and turns it into a fact row. */
export function clickRow(message: LogRecord, partition: number): RowOutcome {
  const decoded = decodeEvent(clickEvent, message.value);
  if (!decoded.ok) return { ok: false, reason: `${decoded.reason}: ${decoded.detail}` };
  const { eventId, data } = decoded.event;
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
    },
    clickedAt: data.clickedAt,
  };
}
