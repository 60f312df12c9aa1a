import { decodeEvent, encodeEvent, type DecodeResult } from './codec';
import { clickRecordedJsonOf } from './click-recorded-json';
import { clickEvent, type ClickEvent, type ClickRecorded } from './events';

/**
 * The clicks topic's record format (`shortlink.clicks.v2`): one or more click events a record, one JSON envelope a line
 * (newline-delimited JSON, as `JSONEachRow`, `jq` and most loaders read it); a one-line record is a v1 record. A click
 * is a few hundred bytes, and a Kafka record's fixed costs in producer and broker outweighed it. JSON never holds a raw
 * line break, so the line is the event's boundary (docs/decisions/0001-clicks-several-to-a-record.md).
 */
export function encodeClickRecord(events: readonly ClickRecorded[]): Buffer {
  if (events.length === 1) return encodeEvent(events[0]!);
  return encodeClickLines(events.map(clickRecordedJsonOf));
}

/** A record of click events already written as JSON, one a line (`clickRecordedJson`). */
export function encodeClickLines(lines: readonly string[]): Buffer {
  return Buffer.from(lines.join('\n'), 'utf8');
}

/** Most clicks one record holds: a record stays far below Kafka's 1 MB default limit (a click is at most ~2 KB). */
export const CLICKS_PER_RECORD = 200;

/** One line of a record of the clicks topic: its index, its text (for a dead letter) and what it parsed to. */
export interface ClickLine {
  line: number;
  text: string | null;
  result: DecodeResult<ClickEvent>;
}

/**
 * Each line of a record of the clicks topic, parsed at the boundary. A bad
 * line is reported alone, with its index: the record's other clicks are good.
 * Blank lines (a trailing newline) are not events and are skipped; a record
 * with none is one bad line.
 */
export function decodeClickRecord(bytes: Buffer | null): ClickLine[] {
  const lines = bytes === null ? [] : bytes.toString('utf8').split('\n');
  const out: ClickLine[] = [];
  lines.forEach((text, line) => {
    if (text.trim() !== '') out.push({ line, text, result: decodeEvent(clickEvent, text) });
  });
  return out.length > 0 ? out : [{ line: 0, text: bytes === null ? null : '', result: decodeEvent(clickEvent, null) }];
}
