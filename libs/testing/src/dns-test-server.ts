import { createSocket, type RemoteInfo } from 'node:dgram';
import * as packet from 'dns-packet';

/** How the server answers every query, whatever its records say: to test a resolver's failures. */
export type DnsTestMode = 'answer' | 'servfail' | 'silent';

export interface DnsTestServer {
  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it. */
  address: string;
  /** The TXT records of a name (each a string); an empty list: the name exists without TXT (NODATA). */
  setTxt(name: string, values: readonly string[]): void;
  /** The name is unknown again: NXDOMAIN. */
  remove(name: string): void;
  setMode(mode: DnsTestMode): void;
  /** Queries received, by name, lower case. */
  queries(): string[];
  close(): Promise<void>;
}

/**
 * A DNS server for tests on 127.0.0.1 (UDP, a free port): TXT records from a
 * table, NXDOMAIN for any other name, and on demand SERVFAIL or no answer at
 * all. Packets are read and written by `dns-packet`, not by hand.
 */
export async function startDnsTestServer(): Promise<DnsTestServer> {
  const socket = createSocket('udp4');
  const records = new Map<string, readonly string[]>();
  const received: string[] = [];
  let mode: DnsTestMode = 'answer';
  const key = (name: string) => name.toLowerCase().replace(/\.$/, '');

  socket.on('message', (message: Buffer, from: RemoteInfo) => {
    let query: packet.Packet;
    try {
      query = packet.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (question === undefined) return;
    received.push(key(question.name));
    if (mode === 'silent') return;
    const values = records.get(key(question.name));
    const rcode = mode === 'servfail' ? 'SERVFAIL' : values === undefined ? 'NXDOMAIN' : 'NOERROR';
    const answers: packet.Answer[] =
      rcode === 'NOERROR' && question.type === 'TXT'
        ? (values ?? []).map((value) => ({ type: 'TXT', name: question.name, ttl: 1, class: 'IN', data: value }))
        : [];
    const response = packet.encode({
      id: query.id,
      type: 'response',
      // Recursion desired and available, and the rcode, in the flags word.
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | rcodeValue(rcode),
      questions: [question],
      answers,
    });
    socket.send(response, from.port, from.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  return {
    address: `127.0.0.1:${socket.address().port}`,
    setTxt: (name, values) => void records.set(key(name), values),
    remove: (name) => void records.delete(key(name)),
    setMode: (next) => void (mode = next),
    queries: () => [...received],
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

function rcodeValue(rcode: 'NOERROR' | 'SERVFAIL' | 'NXDOMAIN'): number {
  return { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 }[rcode];
}
