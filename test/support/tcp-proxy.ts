import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of a real server, which a test can cut (the server "goes away") and restore. */
export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  /**
   * Stalls the server without a word, as a frozen process or a partition does:
   * connections stay open, new ones are accepted, and no byte passes either way.
   */
  freeze(): void;
  /** Lets the bytes held since `freeze` through, and every later one. */
  thaw(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<Pair>();
  let frozen = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  // Paused, a socket reads nothing: what the peer sends waits in the kernel, unanswered.
  const flow = ({ client, upstream }: Pair) => {
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const hold = ({ client, upstream }: Pair) => {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  };
  const newServer = () =>
    createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      const pair = { client, upstream };
      track(client);
      track(upstream);
      pairs.add(pair);
      if (frozen) hold(pair);
      else flow(pair);
      client.on('close', () => {
        pairs.delete(pair);
        upstream.destroy();
      });
      upstream.on('close', () => client.destroy());
    });
  const listen = (server: Server, port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
  let server = newServer();
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;
  let listening = true;
  const stop = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    port,
    cut: stop,
    async restore() {
      server = newServer();
      await listen(server, port);
      listening = true;
    },
    freeze() {
      frozen = true;
      for (const pair of pairs) hold(pair);
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) flow(pair);
    },
    close: stop,
  };
}
