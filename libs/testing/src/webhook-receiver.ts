import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { startProcess, type RunningProcess } from './processes';

/**
 * An integrator's webhook endpoints, as a process of its own (webhook-receiver-main.ts) that tests, the chaos run
 * and the bench start, kill and start again. Every path is an endpoint; its last segment says how it behaves:
 *
 * - `…/flaky` answers 500 to a share of requests (`failRate`, chosen at random per request) and 204 to the rest;
 * - `…/slow` answers 204 after `slowMs`;
 * - `…/gone` answers 410;
 * - `…/dead` never answers: the request is logged (status 0) and the connection held until the sender gives up;
 * - anything else answers 204.
 *
 * Each request is appended to the log file (NDJSON, one `ReceivedDelivery` a line) before it is answered, so a
 * delivery the dispatcher saw answered 2xx is on record even when the receiver is killed right after.
 */
export interface ReceiverBehaviour {
  failRate: number;
  slowMs: number;
  /** Keep each request's body in the log (false: ids, type and times only, for the bench's volumes). */
  bodies: boolean;
}

/** One request the receiver answered, as logged. */
export interface ReceivedDelivery {
  path: string;
  status: number;
  /** When the request was read whole (ms since the epoch). */
  at: number;
  /** The `webhook-*` headers as sent. */
  headers: Record<string, string>;
  /** The body as sent ('' unless the receiver keeps bodies). */
  body: string;
  /** The payload's `type`, read by the receiver. */
  type: string;
  /** The payload's `timestamp` (its event's time), read by the receiver; '' when it has none. */
  timestamp: string;
}

export function behaviourFor(
  path: string,
  behaviour: ReceiverBehaviour,
  random: () => number,
): number | 'slow' | 'dead' {
  const last = path.split('?')[0]?.split('/').pop() ?? '';
  if (last === 'gone') return 410;
  if (last === 'dead') return 'dead';
  if (last === 'slow') return 'slow';
  if (last === 'flaky' && random() < behaviour.failRate) return 500;
  return 204;
}

/** The receiver's HTTP server (not yet listening). */
export function createWebhookReceiver(logFile: string, behaviour: ReceiverBehaviour): http.Server {
  return http.createServer((req, res) => {
    if (req.url === '/healthz') return void res.writeHead(200).end('ok');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '';
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (name.startsWith('webhook-') && typeof value === 'string') headers[name] = value;
      }
      let type = '';
      let timestamp = '';
      try {
        const sent = JSON.parse(body) as { type?: unknown; timestamp?: unknown };
        type = typeof sent.type === 'string' ? sent.type : '';
        timestamp = typeof sent.timestamp === 'string' ? sent.timestamp : '';
      } catch {
        // Not JSON: logged with no type, and the test that reads the log says so.
      }
      const log = (status: number) => {
        const line: ReceivedDelivery = {
          path,
          status,
          at: Date.now(),
          headers,
          body: behaviour.bodies ? body : '',
          type,
          timestamp,
        };
        appendFileSync(logFile, `${JSON.stringify(line)}\n`);
      };
      const answer = (status: number) => {
        log(status);
        res.writeHead(status).end();
      };
      const decided = behaviourFor(path, behaviour, Math.random);
      if (decided === 'slow') setTimeout(() => answer(204), behaviour.slowMs);
      // A dead endpoint: the sender waits for an answer that never comes, holding its connection until its timeout.
      else if (decided === 'dead') log(0);
      else answer(decided);
    });
  });
}

/** Every request a receiver logged to `logFile`, across its restarts (a line cut short by a kill is skipped). */
export function readReceived(logFile: string): ReceivedDelivery[] {
  let text: string;
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return [];
  }
  const received: ReceivedDelivery[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      received.push(JSON.parse(line) as ReceivedDelivery);
    } catch {
      // The last line of a receiver killed mid-write: its request was never answered.
    }
  }
  return received;
}

/** Starts the log afresh. */
export function clearReceived(logFile: string): void {
  writeFileSync(logFile, '');
}

export interface ReceiverProcessOptions {
  /** The repository root (where `libs/testing/dist` is). */
  root: string;
  logFile: string;
  failRate?: number;
  slowMs?: number;
  bodies?: boolean;
  /** A port to listen on: the one a receiver started before had, to come back where the endpoints point. */
  port?: number;
}

/** The receiver as a process of its own, listening on `url` once this resolves. */
export function startWebhookReceiver(options: ReceiverProcessOptions): Promise<RunningProcess> {
  return startProcess(
    'libs/testing/dist/webhook-receiver-main.js',
    {
      RECEIVER_LOG: options.logFile,
      RECEIVER_FAIL_RATE: String(options.failRate ?? 0.3),
      RECEIVER_SLOW_MS: String(options.slowMs ?? 1000),
      RECEIVER_BODIES: String(options.bodies ?? true),
    },
    { root: options.root, ...(options.port === undefined ? {} : { port: options.port }) },
  );
}
