import { connect, type AddressInfo } from 'node:net';
import { HttpError } from './errors';
import { createServer } from './server';

/**
 * An answer given before its request's body has arrived (a 413 for a declared size, a 401 from a hook that runs
 * before the body is read) reaches a client that goes on sending the body, with or without `Connection: close`:
 * closed while bytes still come, the connection is reset, and a reset discards the answer the client has not read.
 */
describe('an early answer to a large upload, over a real socket', () => {
  let app: ReturnType<typeof createServer>;
  let port: number;

  beforeAll(async () => {
    app = createServer({ logger: false, trustProxy: false });
    app.post(
      '/api/v1/links',
      {
        onRequest: async (request) => {
          if (request.headers.authorization === undefined) {
            throw new HttpError(
              401,
              'Unauthorized',
              'unauthorized',
              { detail: 'No key.' },
              { 'www-authenticate': 'Bearer' },
            );
          }
        },
      },
      async (request) => request.body,
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  /** Sends the head and the whole body, reading nothing until the last byte is written; then reads the answer. */
  function upload(head: string, size: number): Promise<{ status: number; body: unknown }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.pause();
      let received = '';
      const finish = () => {
        const end = received.indexOf('\r\n\r\n');
        const length = /\r\ncontent-length: (\d+)/i.exec(received)?.[1];
        if (end < 0 || length === undefined || received.length < end + 4 + Number(length)) return false;
        socket.end();
        resolve({
          status: Number(received.split(' ')[1]),
          body: JSON.parse(received.slice(end + 4, end + 4 + Number(length))) as unknown,
        });
        return true;
      };
      socket.on('data', (d) => {
        received += d.toString('latin1');
        finish();
      });
      socket.on('close', () => finish() || reject(new Error(`closed after ${JSON.stringify(received)}`)));
      socket.on('error', (e) => reject(new Error(`${e.message} after ${JSON.stringify(received)}`)));
      socket.write(head + `Content-Length: ${size}\r\n\r\n`);
      socket.write(Buffer.alloc(size, 'a'), () => socket.resume());
    });
  }

  const MB = 1024 * 1024;
  const cases = [2 * MB, 10 * MB].flatMap((size) =>
    ['', 'Connection: close\r\n'].flatMap((connection) => [
      {
        name: `${size / MB} MB${connection ? ', Connection: close' : ''}, too large`,
        head: `POST /api/v1/links HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\n${connection}`,
        size,
        status: 413,
        body: {
          error: 'Request body too large',
          code: 'body_too_large',
          detail: 'The body is over the 65536 bytes this route takes.',
        },
      },
      {
        name: `${size / MB} MB${connection ? ', Connection: close' : ''}, no key`,
        head: `POST /api/v1/links HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n${connection}`,
        size,
        status: 401,
        body: { error: 'Unauthorized', code: 'unauthorized', detail: 'No key.' },
      },
    ]),
  );

  it.each(cases)(
    'reaches the client: $name',
    async ({ head, size, status, body }) => {
      await expect(upload(head, size)).resolves.toEqual({ status, body });
    },
    20_000,
  );
});
