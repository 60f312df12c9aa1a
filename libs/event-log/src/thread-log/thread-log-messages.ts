import type { AppendRecordsOptions, OutgoingRecord, RecordBatch, Subscription } from '../log-client';
import type { TopicSpec } from '../topics';

/**
 * What a thread that uses the event log (the client) and the thread that owns
 * it (the host) say to each other over a MessagePort. Buffers cross as
 * Uint8Arrays (structured clone) and are made Buffers again on arrival.
 */
export type ClientToHost =
  | { kind: 'call'; id: number; call: HostCall }
  /** The client's handler finished a batch (or failed it). */
  | { kind: 'batch-done'; batchId: number; error?: WireError }
  | ({ kind: 'advance'; offset: string } & PartitionRef);

/**
 * A partition of one of the client's consumers. Commits name the partition,
 * not the batch: a consumer with records in hand commits after its batch
 * ended, through the latest batch's control.
 */
export interface PartitionRef {
  consumerId: number;
  topic: string;
  partition: number;
}

export type HostCall =
  | { op: 'producer-connect' | 'producer-disconnect'; producerId: number }
  | { op: 'append'; producerId: number; topic: string; records: OutgoingRecord[]; options: AppendRecordsOptions }
  | { op: 'consume'; consumerId: number; subscription: Subscription }
  | { op: 'stop-consumer'; consumerId: number }
  | ({ op: 'commit'; offset: string } & PartitionRef)
  /** A heartbeat, answered with whether the partition is still this member's. */
  | ({ op: 'heartbeat' } & PartitionRef)
  | { op: 'admin'; adminId: number; method: AdminMethod; args: AdminArgs };

export type AdminMethod =
  | 'connect'
  | 'disconnect'
  | 'createMissingTopics'
  | 'partitionOffsets'
  | 'committedOffsets'
  | 'groupIsActive'
  | 'deleteGroup';
export type AdminArgs = (string | number | readonly TopicSpec[] | undefined)[];

export type HostToClient =
  | { kind: 'result'; id: number; ok: true; value?: unknown }
  | { kind: 'result'; id: number; ok: false; error: WireError }
  | { kind: 'batch'; consumerId: number; batchId: number; batch: RecordBatch };

/** An error as it crosses: what the consumer's transient-or-fatal rule reads (see transient-failure.ts). */
export interface WireError {
  name: string;
  message: string;
  code?: string;
  retriable?: boolean;
}

export function toWireError(error: unknown): WireError {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as Partial<
    WireError & Error
  >;
  return {
    name: typeof e.name === 'string' ? e.name : 'Error',
    message: typeof e.message === 'string' ? e.message : String(error),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.retriable === 'boolean' ? { retriable: e.retriable } : {}),
  };
}

export function fromWireError(wire: WireError): Error {
  return Object.assign(new Error(wire.message), wire);
}

const asBuffer = <T>(value: T): T | Buffer =>
  value instanceof Uint8Array && !Buffer.isBuffer(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : value;

/** Buffers in a record's key, value and headers, as they were before the crossing. */
export function withBuffers<R extends { key: unknown; value: unknown; headers?: Record<string, unknown> }>(
  record: R,
): R {
  const headers =
    record.headers &&
    Object.fromEntries(
      Object.entries(record.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.map(asBuffer) : asBuffer(value),
      ]),
    );
  return { ...record, key: asBuffer(record.key), value: asBuffer(record.value), ...(headers ? { headers } : {}) };
}
