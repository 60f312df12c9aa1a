import type { ClickHouseClient } from '@clickhouse/client';
import { decodeEvent, redirectsFiltered, type RedirectsFiltered } from '@shortlink/events';
import { OK, type MessageHandler } from '@shortlink/event-log';
import type { ProjectorMetricSet } from '../projector-metrics';

const FILTERED_COLUMNS = ['account_id', 'link_id', 'day', 'reason', 'family', 'flush_id', 'count'] as const;
const UNKNOWN_COLUMNS = ['day', 'flush_id', 'hits'] as const;

/** The rows of one RedirectsFiltered event: its id is each row's `flush_id`; a family only for crawlers ('' else). */
export function filteredRows(event: RedirectsFiltered) {
  const flushId = event.eventId;
  return {
    filtered: event.data.counts.map((c) => [c.accountId, c.linkId, c.day, c.reason, c.family ?? '', flushId, c.count]),
    unknown: event.data.unknownSlugs.map((u) => [u.day, flushId, u.count]),
  };
}

/**
 * Parses each RedirectsFiltered event at the boundary and writes its counts to ClickHouse. An event delivered again
 * writes the same rows under the same flush id: the insert's token drops it within the deduplication window, and the
 * ReplacingMergeTree keeps one row per flush id and key beyond it (readers use FINAL).
 */
export function filteredEventHandler(clickhouse: ClickHouseClient, metrics: ProjectorMetricSet): MessageHandler {
  return async (message) => {
    const decoded = decodeEvent(redirectsFiltered, message.value);
    if (!decoded.ok) return { kind: 'dead-letter', reason: `${decoded.reason}: ${decoded.detail}` };
    const { filtered, unknown } = filteredRows(decoded.event);
    const timer = metrics.insertDuration.startTimer({ projection: 'redirects_filtered' });
    try {
      const settings = { insert_deduplicate: 1, insert_deduplication_token: decoded.event.eventId } as const;
      if (filtered.length > 0) {
        await clickhouse.insert({
          table: 'redirects_filtered',
          columns: [...FILTERED_COLUMNS],
          values: filtered,
          format: 'JSONCompactEachRow',
          clickhouse_settings: settings,
        });
      }
      if (unknown.length > 0) {
        await clickhouse.insert({
          table: 'unknown_slug_hits',
          columns: [...UNKNOWN_COLUMNS],
          values: unknown,
          format: 'JSONCompactEachRow',
          clickhouse_settings: settings,
        });
      }
    } finally {
      timer();
    }
    metrics.rows.inc({ projection: 'redirects_filtered' }, filtered.length + unknown.length);
    return OK;
  };
}
