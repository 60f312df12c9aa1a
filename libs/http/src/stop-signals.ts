import { pino } from 'pino';

/** On a signal, how long in-flight work may take after the drain, unless a caller says otherwise. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** The signals that ask a process to stop; any other fatal signal ends it at once. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * Signals this close after the first are one request sent twice, not a second
 * one: Ctrl-C under `npm start` reaches both npm and the process, and npm
 * passes its own on a few milliseconds later.
 */
export const REPEATED_SIGNAL_MS = 1_000;

export interface SignalHost {
  on(signal: StopSignal, listener: () => void): void;
  exit(code: number): void;
  now(): number;
  /** Runs `fn` after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
  log: { warn(fields: object, message: string): void; error(fields: object, message: string): void };
}

export interface StopSignals {
  /** The signal that asked the process to stop before it served, if one did: the start goes no further. */
  requestedWhileStarting(): StopSignal | undefined;
  /**
   * From now on a stop signal goes to `close` (the serving process's close,
   * which deals with repeats itself); one received while starting is handed
   * over at once.
   */
  handOver(close: (signal: StopSignal) => void): void;
}

/**
 * A process's stop signals from its first line on. Node's default would end a starting process with nothing closed
 * (group members holding partitions for a session timeout, embedded stores left open), so a signal while starting lets
 * the step under way end, skips the rest, closes what was opened and exits 0. A start not done within `graceMs`, or
 * signalled twice, exits 1: nothing was acknowledged yet (docs/decisions/0032-a-signal-while-starting.md).
 */
export function stopSignals(host: SignalHost, graceMs: number): StopSignals {
  let close: ((signal: StopSignal) => void) | undefined;
  let requested: { signal: StopSignal; at: number } | undefined;
  let cancelTimeout: (() => void) | undefined;

  const whileStarting = (signal: StopSignal): void => {
    if (requested === undefined) {
      requested = { signal, at: host.now() };
      host.log.warn({ signal, graceMs }, 'stop requested while starting: the start ends at its next step, then closes');
      cancelTimeout = host.after(graceMs, () => {
        host.log.error({ signal, graceMs }, 'the start did not end within the grace period; exiting without closing');
        host.exit(1);
      });
      return;
    }
    if (host.now() - requested.at < REPEATED_SIGNAL_MS) return;
    host.log.error({ signal }, 'stop signalled again while starting; exiting at once');
    host.exit(1);
  };

  for (const signal of STOP_SIGNALS) {
    host.on(signal, () => (close ? close(signal) : whileStarting(signal)));
  }
  return {
    requestedWhileStarting: () => requested?.signal,
    handOver(handler) {
      close = handler;
      // The close has a grace period of its own.
      cancelTimeout?.();
      if (requested) handler(requested.signal);
    },
  };
}

let processSignals: StopSignals | undefined;

/** This process's stop signals (installed once, by the first caller: `runMain`, before anything starts). */
export function processStopSignals(): StopSignals {
  processSignals ??= stopSignals(
    {
      on: (signal, listener) => process.on(signal, listener),
      exit: (code) => process.exit(code),
      now: () => Date.now(),
      after: (ms, fn) => {
        const timer = setTimeout(fn, ms);
        return () => clearTimeout(timer);
      },
      // The service's own logger is made later, from its configuration.
      log: pino({ base: { pid: process.pid } }),
    },
    SHUTDOWN_GRACE_MS,
  );
  return processSignals;
}
