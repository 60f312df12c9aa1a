import * as http from 'node:http';
import * as https from 'node:https';
import { excerpt } from '@shortlink/http';
import { isBlockedAddressError, isIpv6EmbeddingIpv4, type PublicNetwork } from '@shortlink/public-network';
import type { SignedHeaders } from './sign-message';

export interface DeliveryPolicy {
  /** The whole attempt: connecting, sending, and reading the answer's head and first bytes. */
  timeoutMs: number;
  /** Most bytes of the answer read; then the connection is dropped. */
  maxAnswerBytes: number;
  /** WEBHOOKS_ALLOW_HTTP: plain http endpoints (local testing); https only otherwise. */
  allowHttp: boolean;
  userAgent: string;
}

export const DEFAULT_DELIVERY_POLICY: Omit<DeliveryPolicy, 'allowHttp' | 'userAgent'> = {
  timeoutMs: 10_000,
  maxAnswerBytes: 4096,
};

/** Marks a replayed message (docs/webhooks.md, "Replaying"): its value is the replay's id. Not signed. */
export const REPLAY_HEADER = 'webhook-replay';

export interface DeliveryRequest {
  url: string;
  headers: SignedHeaders & { [REPLAY_HEADER]?: string };
  payload: string;
}

/**
 * What one attempt came to. `answer` is an excerpt of the endpoint's answer
 * for the attempt log (escaped, 40 characters at most), never the answer
 * itself; `error` a short fixed text when there was no status.
 */
export type DeliveryResult =
  | { kind: 'answered'; status: number; retryAfter?: string | undefined; answer: string | null; latencyMs: number }
  | { kind: 'failed'; error: string; latencyMs: number };

export type Deliver = (request: DeliveryRequest) => Promise<DeliveryResult>;

/**
 * One POST to an endpoint an API user chose, so every part of it is bounded:
 * the address is checked at connect time (public-network: no DNS rebinding),
 * redirects are not followed (a 3xx is an answer like any other), the attempt
 * ends after `timeoutMs`, and at most `maxAnswerBytes` of the answer are read
 * before the connection is dropped. Never throws.
 */
export function createDeliverer(policy: DeliveryPolicy, network: PublicNetwork, now = () => Date.now()): Deliver {
  return async (request) => {
    const started = now();
    const latency = () => Math.max(0, Math.round(now() - started));
    const url = targetOf(request.url, policy.allowHttp);
    if (typeof url === 'string') return { kind: 'failed', error: url, latencyMs: 0 };
    const signal = AbortSignal.timeout(policy.timeoutMs);
    try {
      const response = await post(url, request, policy.userAgent, network, signal);
      const status = response.statusCode ?? 0;
      const retryAfter = response.headers['retry-after'];
      const answer = await readAnswer(response, policy.maxAnswerBytes, signal);
      return { kind: 'answered', status, retryAfter, answer, latencyMs: latency() };
    } catch (err) {
      return { kind: 'failed', error: failureText(err, signal), latencyMs: latency() };
    }
  };
}

/** The endpoint's URL, or why it is not sent to (checked again here: the API checked it when it was stored). */
function targetOf(raw: string, allowHttp: boolean): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return 'scheme not allowed';
  if (url.username || url.password) return 'URL with credentials';
  if (isIpv6EmbeddingIpv4(url.hostname)) return 'refused address';
  return url;
}

function post(
  url: URL,
  request: DeliveryRequest,
  userAgent: string,
  network: PublicNetwork,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const send = url.protocol === 'https:' ? https.request : http.request;
  const body = Buffer.from(request.payload, 'utf8');
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: 'POST',
      agent: network.agents[url.protocol as 'http:' | 'https:'],
      lookup: network.lookup,
      signal,
      headers: {
        ...request.headers,
        'content-type': 'application/json',
        'content-length': String(body.length),
        'user-agent': userAgent,
      },
    });
    req.once('response', resolve);
    req.once('error', reject);
    // A 101 nobody asked for gives no response and no error: without these the attempt would never settle.
    req.once('upgrade', (_response, socket) => {
      socket.destroy();
      reject(new Error('the endpoint switched protocols'));
    });
    req.once('close', () => reject(new Error('socket hang up')));
    req.end(body);
  });
}

/** The answer's first bytes as an excerpt; the rest is never read off the socket. */
async function readAnswer(
  response: http.IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<string | null> {
  const pieces: Buffer[] = [];
  let size = 0;
  const onAbort = () => response.destroy();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    // Leaving the loop early (too long an answer) destroys the response and its connection.
    for await (const chunk of response) {
      const buffer = chunk as Buffer;
      pieces.push(buffer.subarray(0, maxBytes - size));
      size += buffer.length;
      if (size >= maxBytes) break;
    }
  } catch {
    // A status came: the answer's body cut short (timeout, reset) changes nothing.
  } finally {
    signal.removeEventListener('abort', onAbort);
    // An answer read to its end leaves its connection for the endpoint's next attempt (keep-alive).
    if (!response.complete) response.destroy();
  }
  const text = Buffer.concat(pieces).toString('utf8').trim();
  return text === '' ? null : excerpt(text);
}

/** Short fixed texts for the attempt log: never the error's own message, which may quote the endpoint. */
function failureText(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'timeout';
  if (isBlockedAddressError(err)) return 'refused address';
  const error = err as NodeJS.ErrnoException;
  const code = error?.code ?? '';
  if (code === 'ENOTFOUND') return 'host not found';
  if (error?.syscall === 'query') return 'DNS failure';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || error?.message === 'socket hang up') return 'connection reset';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (/CERT|SSL|TLS/.test(code)) return 'TLS error';
  if (code.startsWith('HPE_')) return 'malformed HTTP answer';
  if (error?.message === 'the endpoint switched protocols') return 'switched protocols';
  return 'connection failed';
}
