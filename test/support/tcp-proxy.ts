import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { Transform } from 'node:stream';

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
  /**
   * Freezes (as `freeze`) the moment a client sends bytes that hold `bytes`:
   * those reach the server, which does what they say, but nothing of its
   * answer comes back (as when the network fails just after a request left).
   * Resolves then.
   */
  freezeAt(bytes: Buffer): Promise<void>;
  /**
   * Freezes the moment a client sends bytes that hold `bytes`, and holds
   * those too: the server never sees them unless `thaw` comes before `cut`
   * (as when the network fails just before a request left). Resolves then.
   */
  freezeBefore(bytes: Buffer): Promise<void>;
  /** Lets the bytes held since `freeze` through, and every later one. */
  thaw(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  /** Between client and upstream: where `freezeAt` looks at what the client sends. */
  outbound: Transform;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<Pair>();
  let frozen = false;
  let trigger: { bytes: Buffer; reached: () => void; holding: boolean } | null = null;
  /** Chunks `freezeBefore` stopped, each with the callback that lets it on. */
  let held: (() => void)[] = [];
  let closedWhileFrozen: Socket[] = [];
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  // Paused, a socket reads nothing: what the peer sends waits in the kernel, unanswered.
  const flow = ({ client, upstream, outbound }: Pair) => {
    client.pipe(outbound);
    upstream.pipe(client);
  };
  const hold = ({ client, upstream, outbound }: Pair) => {
    client.unpipe(outbound);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  };
  const newServer = () =>
    createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      const outbound = new Transform({
        transform(chunk: Buffer, _encoding, pass) {
          const reached = trigger !== null && chunk.includes(trigger.bytes) ? trigger : null;
          if (reached?.holding) held.push(() => pass(null, chunk));
          else pass(null, chunk);
          if (reached === null) return;
          trigger = null;
          freezeAll();
          reached.reached();
        },
      });
      outbound.pipe(upstream);
      const pair = { client, upstream, outbound };
      track(client);
      track(upstream);
      pairs.add(pair);
      if (frozen) hold(pair);
      else flow(pair);
      client.on('close', () => {
        pairs.delete(pair);
        upstream.destroy();
      });
      // A frozen server closes nothing: a close of the real one (its idle timeout) reaches the client on thaw.
      upstream.on('close', () => (frozen ? closedWhileFrozen.push(client) : client.destroy()));
    });
  const listen = (server: Server, port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
  const freezeAll = () => {
    frozen = true;
    for (const pair of pairs) hold(pair);
  };
  let server = newServer();
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;
  let listening = true;
  const stop = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    // What freezeBefore stopped went with its connection.
    held = [];
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
    freeze: freezeAll,
    freezeAt(bytes) {
      return new Promise<void>((reached) => (trigger = { bytes, reached, holding: false }));
    },
    freezeBefore(bytes) {
      return new Promise<void>((reached) => (trigger = { bytes, reached, holding: true }));
    },
    thaw() {
      frozen = false;
      trigger = null;
      for (const pair of pairs) flow(pair);
      for (const passOn of held.splice(0)) passOn();
      for (const client of closedWhileFrozen) client.destroy();
      closedWhileFrozen = [];
    },
    close: stop,
  };
}
