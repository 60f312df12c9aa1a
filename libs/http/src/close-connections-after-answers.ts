import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * When the process closes, every answer still in the making ends its connection (`Connection: close`), including those
 * of requests arriving on open connections while closing. `server.close()` waits for busy connections, and one kept
 * alive after its answer would hold the close past the grace period, so the process would be killed before its stores
 * and producers closed. Connections are tracked as they open, never per request: the redirect path pays nothing.
 */
export function closeConnectionsAfterAnswers(app: FastifyInstance): void {
  const server: Server = app.server;
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', async () => {
    // Requests still arriving on open connections (their headers completing
    // now) end theirs too, whichever path answers them: fastify's own mark is
    // not on an error answer, nor on a path refused before routing.
    server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      response.shouldKeepAlive = false;
    });
    for (const socket of open) {
      // Node's response now being written on the connection (long-standing, not documented).
      const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      // Without a Connection header of its own, Node writes `Connection: close` and closes after the answer.
      if (response && !response.headersSent) response.shouldKeepAlive = false;
    }
  });
}
