import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { compressSync, decompressFrameSync } from 'lz4-napi';

/**
 * Kafka's LZ4 codec for kafkajs, which ships only gzip: the LZ4 frame format (what the Java client, librdkafka, kcat
 * and ClickHouse write and read) through lz4-napi's prebuilt binding, registered by every process that talks to Kafka
 * so any consumer reads the click producer's batches. Synchronous on purpose: a batch of tens of kilobytes compresses
 * in well under a millisecond, less than a thread-pool hop (docs/decisions/0004-lz4-on-the-clicks-topic.md).
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
 * An LZ4 frame (format 1.6.x) of `data`, its blocks made by lz4-napi's block compressor, which is markedly faster than
 * its frame writer on click lines; the frame around the blocks is a header, a size before each block and an end mark. A
 * block that would not shrink is stored as it is, as the format requires
 * (docs/decisions/0004-lz4-on-the-clicks-topic.md).
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
