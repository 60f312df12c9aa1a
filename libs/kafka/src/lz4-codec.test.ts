import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { LZ4_FRAME_MAGIC, registerLz4Codec } from './lz4-codec';

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
