import type { MessagePort } from 'node:worker_threads';
import type { KafkaNames } from '@shortlink/event-log';
import type { MetricsSnapshot } from '@shortlink/metrics';
import type { SystemSettings } from './system-config';

/** What the click projector's thread starts from. */
export interface ClickProjectorThreadData {
  settings: SystemSettings;
  names: KafkaNames;
  /** The event log of the main thread, served there (serveLogClient). */
  logPort: MessagePort;
}

export type ToClickProjectorThread =
  { type: 'stop' } | { type: 'metrics'; id: number } | { type: 'check'; id: number; dependency: string };

export type FromClickProjectorThread =
  | { type: 'started'; dependencies: string[] }
  | { type: 'start-failed'; message: string }
  | { type: 'stopped' }
  | { type: 'metrics'; id: number; snapshot: MetricsSnapshot }
  | { type: 'check'; id: number; error?: string };
