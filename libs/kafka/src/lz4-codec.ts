import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { compressFrameSync, decompressFrameSync } from 'lz4-napi';

/**
 * Kafka's LZ4 codec for kafkajs, which ships only gzip: the LZ4 frame format
 * (what the Java client, librdkafka, kcat and ClickHouse's Kafka engine write
 * and read), through lz4-napi's prebuilt native binding. Registered once, by
 * every process that talks to Kafka, so that any consumer here reads the
 * compressed batches the click producer writes (docs/performance.md, "Where
 * a click's CPU goes, by thread; LZ4 batches").
 *
 * Synchronous on purpose: a batch is tens of kilobytes, compressed in well
 * under a millisecond, and a thread-pool hop would cost more than it saves.
 */
export function registerLz4Codec(): void {
  CompressionCodecs[CompressionTypes.LZ4] = () => ({
    // async: a bad frame is a rejected promise, as kafkajs expects of a codec, not a throw.
    compress: async (encoder: { buffer: Buffer }) => compressFrameSync(encoder.buffer),
    decompress: async (buffer: Buffer) => decompressFrameSync(buffer),
  });
}

/** The first four bytes of every LZ4 frame (little-endian 0x184D2204). */
export const LZ4_FRAME_MAGIC = Buffer.from([0x04, 0x22, 0x4d, 0x18]);
