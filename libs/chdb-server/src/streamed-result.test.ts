import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChdbEngine } from './engine';
import { streamResult, streamedQuery } from './streamed-result';

/** An engine that hands out `count` chunks of `size` bytes, calling `onAsk` as each is asked for. */
function engineOf(count: number, size: number, onAsk: () => void): ChdbEngine {
  return {
    async *stream() {
      for (let i = 0; i < count; i++) {
        onAsk();
        yield new Uint8Array(size).fill(0x61 + (i % 26));
      }
    },
  } as unknown as ChdbEngine;
}

describe('a streamed result', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  /** Serves one streamed answer from `engine` and reads it whole: its length. */
  async function answer(engine: ChdbEngine, onResponse: (res: ServerResponse) => void) {
    const query = streamedQuery('SELECT 1 FORMAT JSONEachRow');
    if (query === null) throw new Error('not streamed');
    let done!: Promise<void>;
    server = createServer((req, res) => {
      onResponse(res);
      const context = { database: 'default', settings: {}, params: {}, queryId: 'q', tempDir: undefined };
      done = streamResult(engine, query, context, req, res);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const body = await (await fetch(`http://127.0.0.1:${port}/`)).arrayBuffer();
    await done;
    return body.byteLength;
  }

  it('leaves no listener behind on the response for each write that waited', async () => {
    let response: ServerResponse | undefined;
    let most = 0;
    const engine = engineOf(60, 64 * 1024, () => {
      most = Math.max(most, response?.listenerCount('close') ?? 0, response?.listenerCount('error') ?? 0);
    });
    await answer(engine, (res) => (response = res));
    // Counted while the answer is under way: once it closes, every listener has fired and gone.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThan(5);
  });
});
