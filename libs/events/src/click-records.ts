import { decodeEvent, encodeEvent, type DecodeResult } from './codec';
import { clickRecordedJsonOf } from './click-recorded-json';
import { clickEvent, type ClickEvent, type ClickRecorded } from './events';

/**
 * The record format of the clicks topic since `shortlink.clicks.v2`: one
 * record holds one or more click events, one JSON envelope per line
 * (newline-delimited JSON, as ClickHouse's `JSONEachRow`, `jq` and most
 * loaders read it). A record of one line is a v1 record as it was.
 *
 * Why: a click is a few hundred bytes, and a Kafka record's fixed costs (its
 * encoding in the producer, its checks in the broker) were most of what a
 * click cost; see docs/performance.md. JSON never holds a raw line break
 * (one inside a string is written `\n`), so the line is the event's boundary.
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
