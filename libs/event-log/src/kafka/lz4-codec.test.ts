import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { compressFrameSync, decompressFrameSync } from 'lz4-napi';
import { LZ4_BLOCK_MAX, LZ4_FRAME_HEADER, LZ4_FRAME_MAGIC, lz4Frame, registerLz4Codec } from './lz4-codec';

interface Codec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

describe("Kafka's LZ4 codec for kafkajs", () => {
  const codec = (): Codec => {
    registerLz4Codec();
    return (CompressionCodecs[CompressionTypes.LZ4] as () => Codec)();
  };

  it('writes LZ4 frames, as Kafka’s clients do, and reads them back unchanged', async () => {
    const lines = Array.from({ length: 200 }, (_, n) =>
      JSON.stringify({ n, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0', referrer: 'Direct' }),
    );
    const batch = Buffer.from(lines.join('\n'));
    const compressed = await codec().compress({ buffer: batch });
    expect(compressed.subarray(0, 4)).toEqual(LZ4_FRAME_MAGIC);
    expect(compressed.length).toBeLessThan(batch.length / 2);
    expect(await codec().decompress(compressed)).toEqual(batch);
  });

  it('refuses bytes that are not an LZ4 frame', async () => {
    await expect(codec().decompress(Buffer.from('not lz4 at all'))).rejects.toThrow();
  });
});

describe('an LZ4 frame of blocks', () => {
  // Bytes that compress (repeated pieces of a click's line) and bytes that do not (random), in runs.
  const runs = fc.array(
    fc.oneof(
      fc
        .tuple(fc.constantFrom('{"country":"DE",', '"userAgent":"Mozilla/5.0"}\n', 'Direct'), fc.nat(20_000))
        .map(([piece, times]) => Buffer.from(piece.repeat(times))),
      fc.nat(300_000).map((n) => randomBytes(n)),
    ),
    { maxLength: 6 },
  );

  it('is read back unchanged by lz4-napi’s frame reader, whatever the bytes and however many blocks', () => {
    fc.assert(
      fc.property(runs, (pieces) => {
        const data = Buffer.concat(pieces);
        // Buffer.equals: jest's deep equality walks megabytes byte by byte.
        expect(decompressFrameSync(lz4Frame(data)).equals(data)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('stores as it is a block that would not shrink, and compresses one that would', () => {
    const random = randomBytes(LZ4_BLOCK_MAX + 10);
    const frame = lz4Frame(random);
    // Header, two blocks stored (each a size with its high bit set, then the bytes), the end mark.
    expect(frame.length).toBe(LZ4_FRAME_HEADER.length + 4 + LZ4_BLOCK_MAX + 4 + 10 + 4);
    expect(frame.readUInt32LE(LZ4_FRAME_HEADER.length)).toBe((LZ4_BLOCK_MAX | 0x8000_0000) >>> 0);
    const text = Buffer.from('Mozilla/5.0 '.repeat(50_000));
    expect(lz4Frame(text).length).toBeLessThan(text.length / 50);
  });

  it('has the header of lz4-napi’s own frames (the same descriptor and its checksum byte)', () => {
    // lz4-napi chooses its block size by the input's: 256 KB for one of 64 to 256 KB.
    const data = Buffer.alloc(100_000, 'a');
    expect(compressFrameSync(data).subarray(0, LZ4_FRAME_HEADER.length)).toEqual(LZ4_FRAME_HEADER);
  });

  it('of nothing is a header and the end mark', () => {
    expect(lz4Frame(Buffer.alloc(0))).toEqual(Buffer.concat([LZ4_FRAME_HEADER, Buffer.alloc(4)]));
    expect(decompressFrameSync(lz4Frame(Buffer.alloc(0)))).toEqual(Buffer.alloc(0));
  });
});
