import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { compressSync, decompressFrameSync } from 'lz4-napi';

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
    compress: async (encoder: { buffer: Buffer }) => lz4Frame(encoder.buffer),
    decompress: async (buffer: Buffer) => decompressFrameSync(buffer),
  });
}

/** The first four bytes of every LZ4 frame (little-endian 0x184D2204). */
export const LZ4_FRAME_MAGIC = Buffer.from([0x04, 0x22, 0x4d, 0x18]);

/**
 * The frame header lz4-napi's own frames have: the magic, FLG 0x60 (version
 * 1, independent blocks, no checksums, no content size), BD 0x50 (blocks of
 * at most 256 KB) and the descriptor's checksum byte (the second byte of
 * xxh32 of FLG and BD).
 */
export const LZ4_FRAME_HEADER = Buffer.concat([LZ4_FRAME_MAGIC, Buffer.from([0x60, 0x50, 0xfb])]);
export const LZ4_BLOCK_MAX = 256 * 1024;
/** A block size's high bit: the block is stored as it is. */
const STORED = 0x8000_0000;
const END_MARK = Buffer.alloc(4);

/**
 * An LZ4 frame (the LZ4 frame format, 1.6.x) of `data`, its blocks made by
 * lz4-napi's block compressor. lz4-napi's frame writer (lz4_flex's
 * `FrameEncoder`) compressed a batch of click lines at about 240 MB/s, its
 * block compressor the same bytes at about 400 (docs/performance.md): the
 * frame around the blocks is a header, a size before each block and an end
 * mark. A block that would not shrink is stored as it is, as the format
 * requires of one that would outgrow the block size.
 */
export function lz4Frame(data: Buffer): Buffer {
  const pieces: Buffer[] = [LZ4_FRAME_HEADER];
  let length = LZ4_FRAME_HEADER.length + END_MARK.length;
  for (let at = 0; at < data.length; at += LZ4_BLOCK_MAX) {
    const block = data.subarray(at, at + LZ4_BLOCK_MAX);
    // compressSync writes the block's uncompressed size (4 bytes) before it.
    const packed = compressSync(block).subarray(4);
    const size = Buffer.allocUnsafe(4);
    if (packed.length < block.length) {
      size.writeUInt32LE(packed.length);
      pieces.push(size, packed);
      length += 4 + packed.length;
    } else {
      size.writeUInt32LE((block.length | STORED) >>> 0);
      pieces.push(size, block);
      length += 4 + block.length;
    }
  }
  pieces.push(END_MARK);
  return Buffer.concat(pieces, length);
}
