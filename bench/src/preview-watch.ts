import { EVENT_HEADERS, type RunningLogConsumer } from '@shortlink/event-log';
import { sleep } from './measure';
import type { BenchStack } from './stack';

/** When each link's first preview landed on the links topic, by link id, and the call to stop watching. */
export interface PreviewWatch {
  previewedAt: ReadonlyMap<string, number>;
  /** Called with each link id as its first preview lands, and the record's time. */
  onPreview: (handler: (linkId: string, at: number) => void) => void;
  stop(): Promise<void>;
}

/**
 * Reads the links topic from its start, as a data team would, and notes
 * when each link's first `LinkPreviewFetched` or `LinkPreviewFailed` was
 * appended: the record's time, from the worker's clock, so this consumer's
 * own lag does not count.
 */
export async function watchPreviews(stack: BenchStack): Promise<PreviewWatch> {
  const previewedAt = new Map<string, number>();
  let handler: (linkId: string, at: number) => void = () => undefined;
  const consumer: RunningLogConsumer = await stack.kafka.consume(
    {
      groupId: `${stack.names.groups.previewWorker}.bench-watch`,
      topics: [stack.names.topics.links],
      fromBeginning: true,
    },
    async ({ records }, control) => {
      for (const record of records) {
        const type = String(record.headers?.[EVENT_HEADERS.type] ?? '');
        if (type !== 'LinkPreviewFetched' && type !== 'LinkPreviewFailed') continue;
        const { linkId } = (JSON.parse(record.value!.toString()) as { data: { linkId: string } }).data;
        if (previewedAt.has(linkId)) continue;
        const at = Number(record.timestamp);
        previewedAt.set(linkId, at);
        handler(linkId, at);
      }
      const last = records[records.length - 1];
      if (last) await control.commit((BigInt(last.offset) + 1n).toString());
    },
  );
  return {
    previewedAt,
    onPreview: (h) => void (handler = h),
    stop: () => consumer.stop(),
  };
}

/** Waits until the preview worker's consumer group has joined (its partitions assigned), at most 30 s. */
export async function workerJoined(stack: BenchStack): Promise<void> {
  const admin = stack.kafka.admin();
  await admin.connect();
  for (let i = 0; i < 300 && !(await admin.groupIsActive(stack.names.groups.previewWorker)); i++) await sleep(100);
  await admin.disconnect();
}
