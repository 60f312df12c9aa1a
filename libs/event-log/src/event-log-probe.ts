import type { EventLogClient, LogAdmin } from './log-client';

export interface EventLogProbe {
  /** Resolves once the log answers for the topic (every partition has a leader to say its offsets). */
  check: () => Promise<void>;
  close: () => Promise<void>;
}

/** Whether the event log can serve `topic` now: a readiness check, on one admin connection opened at first use. */
export function eventLogProbe(client: EventLogClient, topic: string): EventLogProbe {
  let admin: LogAdmin | undefined;
  return {
    async check() {
      admin ??= client.admin();
      // Cheap once connected; after a failed start it tries again.
      await admin.connect();
      await admin.partitionOffsets(topic);
    },
    async close() {
      await admin?.disconnect();
      admin = undefined;
    },
  };
}
