import { decodeEvent, linkEvent } from '@shortlink/events';
import { LinkEventFold } from './fold-link-events';
import { serializeFoldedBatch, type CreationLoad, type FoldedPayload } from './write-folded-batch';

/** One fetch of one partition, its record values laid end to end (a length of -1 for a record without one). */
export interface PackedFetch {
  partition: number;
  offsets: string[];
  bytes: Uint8Array;
  lengths: Int32Array;
  load: CreationLoad;
}

export interface DecodedFetch {
  /** In topic order; more than one where the fold had to start a new batch. */
  payloads: FoldedPayload[];
  /** Records that are not link events. */
  skipped: number;
}

/** Record values from a fetch, packed into one buffer a thread can hand over without copying. */
export function packFetch(
  partition: number,
  records: readonly { offset: string; value: Buffer | null }[],
  load: CreationLoad,
): PackedFetch {
  const lengths = new Int32Array(records.length);
  let total = 0;
  records.forEach((r, i) => {
    lengths[i] = r.value === null ? -1 : r.value.length;
    total += r.value?.length ?? 0;
  });
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const r of records) {
    if (r.value === null) continue;
    bytes.set(r.value, at);
    at += r.value.length;
  }
  return { partition, offsets: records.map((r) => r.offset), bytes, lengths, load };
}

/**
 * Parses each record with the events' schemas, as the live projector does
 * (what it would dead-letter is skipped), and folds the fetch into batches
 * ready to write.
 */
export function decodeFetch({ partition, offsets, bytes, lengths, load }: PackedFetch): DecodedFetch {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const payloads: FoldedPayload[] = [];
  let skipped = 0;
  let fold = new LinkEventFold();
  let at = 0;
  for (let i = 0; i < offsets.length; i++) {
    const length = lengths[i] ?? -1;
    const value = length < 0 ? null : data.subarray(at, at + length);
    at += Math.max(0, length);
    const decoded = decodeEvent(linkEvent, value);
    if (!decoded.ok) {
      skipped++;
      continue;
    }
    const positioned = { event: decoded.event, partition, offset: offsets[i] as string };
    if (!fold.add(positioned)) {
      payloads.push(serializeFoldedBatch(fold.result(), load));
      fold = new LinkEventFold();
      fold.add(positioned);
    }
  }
  payloads.push(serializeFoldedBatch(fold.result(), load));
  return { payloads, skipped };
}
