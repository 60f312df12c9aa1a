import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A connection closed after an answer keeps reading, and dropping, what its
 * client still sends, until the client closes it, has been silent this long,
 * or the cap has passed (nginx's `lingering_timeout` and `lingering_time`, and
 * their defaults). (The resets a CI burst of 2,000 requests once gave a few
 * 431s, blamed on a shorter silence here, came from the listen queue: see
 * LISTEN_BACKLOG in serve.ts.)
 */
export const LINGER_IDLE_MS = 5_000;
export const LINGER_MAX_MS = 30_000;

/**
 * Destroys a socket whose side is closed once its client has closed too, has
 * sent nothing for LINGER_IDLE_MS, or LINGER_MAX_MS have passed; until then
 * what arrives is read and dropped. Closed while the client still sends, the
 * kernel answers its bytes with a reset, and a reset discards the answer if
 * the client has not read it yet. Silence is seen in `bytesRead`, which counts
 * bytes Node's HTTP parser reads natively too, where no 'data' event fires.
 */
export function linger(socket: Socket): void {
  let read = socket.bytesRead;
  const idle = setInterval(() => {
    if (socket.bytesRead === read) socket.destroy();
    read = socket.bytesRead;
  }, LINGER_IDLE_MS).unref();
  const cap = setTimeout(() => socket.destroy(), LINGER_MAX_MS).unref();
  socket.once('close', () => {
    clearInterval(idle);
    clearTimeout(cap);
  });
}

/**
 * An answer that ends its connection (the client sent `Connection: close`, or
 * the process is closing) before its request's body has arrived, such as a 413
 * for a declared size or a 401 from a hook that runs before the body, closes
 * only our side, then lingers while the rest of the body is read and dropped
 * (Node's HTTP server drops it): Node would destroy the socket at once. Per
 * connection, never per request: the redirect path pays nothing.
 */
export function lingerAfterEarlyAnswers(server: Server): void {
  server.on('connection', (socket: Socket & { parser?: { incoming?: IncomingMessage | null } | null }) => {
    const destroySoon = socket.destroySoon.bind(socket);
    socket.destroySoon = () => {
      const request = socket.parser?.incoming;
      if (request === null || request === undefined || request.complete) {
        destroySoon();
        return;
      }
      // Node's HTTP server reads on and drops the body (the request is dumped); only the close waits.
      if (socket.writable) socket.end();
      linger(socket);
    };
  });
}
