import { createSocket } from 'node:dgram';
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What the test name server does with a name: its addresses, or a failure, or nothing at all. */
export type DnsBehaviour = { addresses: string[]; ttlSeconds?: number } | 'nxdomain' | 'servfail' | 'silent';

export interface DnsTestServer {
  /** `127.0.0.1:port`, for a resolver's `setServers`. */
  address: string;
  /** The names asked, in order (one per query: A and AAAA count apart). */
  asked: string[];
  close(): Promise<void>;
}

const A = 1;
const AAAA = 28;
const RCODE = { nxdomain: 3, servfail: 2 } as const;

/**
 * A name server for tests, over UDP on the loopback: answers each name as
 * `behave` says. Only what a stub resolver's A and AAAA queries need: one
 * question, answers in the record type asked, no compression but the
 * pointer to the question.
 */
export async function startDnsTestServer(behave: (name: string) => DnsBehaviour): Promise<DnsTestServer> {
  const socket = createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (query, peer) => {
    let at = 12;
    const labels: string[] = [];
    while (at < query.length && query[at] !== 0) {
      const length = query[at]!;
      labels.push(query.subarray(at + 1, at + 1 + length).toString('latin1'));
      at += 1 + length;
    }
    const questionEnd = at + 5;
    if (questionEnd > query.length) return;
    const type = query.readUInt16BE(at + 1);
    const name = labels.join('.').toLowerCase();
    asked.push(name);
    const behaviour = behave(name);
    if (behaviour === 'silent') return;
    const records =
      typeof behaviour === 'string'
        ? []
        : behaviour.addresses
            .filter((a) => (type === A ? isIPv4(a) : type === AAAA && !isIPv4(a)))
            .map((a) => Buffer.from(ipaddr.parse(a).toByteArray()));
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(0x8180 | (typeof behaviour === 'string' ? RCODE[behaviour] : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    const answers = records.map((rdata) => {
      const record = Buffer.alloc(12 + rdata.length);
      record.writeUInt16BE(0xc00c, 0);
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4);
      record.writeUInt32BE(typeof behaviour === 'string' ? 0 : (behaviour.ttlSeconds ?? 60), 6);
      record.writeUInt16BE(rdata.length, 10);
      rdata.copy(record, 12);
      return record;
    });
    socket.send(Buffer.concat([header, query.subarray(12, questionEnd), ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
