import type { ClickColumns } from './click-columns';

/** What the click worker is started with: plain values, as a worker thread needs. */
export interface ClickWorkerData {
  brokers: string[];
  clientId: string;
  topic: string;
  visitorSecret: string;
  /** The prefix of this process's click event ids (click-event-id.ts): a new worker writes the same ids. */
  eventIdPrefix: string;
}

export type ToClickWorker = { type: 'clicks'; batch: number; clicks: ClickColumns } | { type: 'stop' };

export type WorkerLogLevel = 'error' | 'warn' | 'info';

export type FromClickWorker =
  | { type: 'ready' }
  | { type: 'start-failed'; message: string }
  /** Kafka acknowledged every event of this batch. */
  | { type: 'sent'; batch: number; rejected: number; rejection?: string }
  | { type: 'send-failed'; batch: number; message: string }
  | { type: 'stopped' }
  | { type: 'log'; level: WorkerLogLevel; fields: Record<string, unknown>; msg: string };

/** Log fields as values that survive `postMessage`: errors flattened, functions left out. */
export function cloneableFields(obj: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (value instanceof Error) out[key] = { type: value.name, message: value.message, stack: value.stack };
    else if (typeof value !== 'function' && typeof value !== 'symbol') out[key] = value;
  }
  return out;
}
