import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import pinoPretty from 'pino-pretty';
import type { ProcessOptions } from './service';
import { processStopSignals } from './stop-signals';

/** The HTTP part of a process's validated configuration (see @shortlink/config httpEnv and logEnv). */
export interface HttpProcessConfig {
  HOST: string;
  PORT: number;
  TRUST_PROXY: boolean;
  SHUTDOWN_DRAIN_MS: number;
  HTTP_REQUEST_TIMEOUT_MS: number;
  MAX_REQUESTS_IN_FLIGHT: number;
  MAX_EVENT_LOOP_DELAY_MS: number;
  LOG_LEVEL: string;
  CORS_ORIGINS: readonly string[];
  LOG_FORMAT?: LogFormat;
}

export type LogFormat = 'json' | 'pretty';

/**
 * LOG_FORMAT, or else pretty text when stdout is a terminal (a person reads
 * it) and JSON lines when it is not (a collector parses them).
 */
export function logFormatFor(setting: LogFormat | undefined, stdoutIsTerminal: boolean): LogFormat {
  return setting ?? (stdoutIsTerminal ? 'pretty' : 'json');
}

/** The process's one logger: HTTP, Kafka and every component write through it. */
export function createLogger(name: string, level: string, format: LogFormat = 'json'): FastifyBaseLogger {
  if (format === 'json') return pino({ name, level });
  // Formatted on this thread, synchronously: a line is written before a crash that follows it.
  return pino(
    { name, level },
    pinoPretty({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }),
  );
}

export function processOptionsFrom(
  name: string,
  config: HttpProcessConfig,
  logger: FastifyBaseLogger,
  extra: Partial<ProcessOptions> & Pick<ProcessOptions, 'metrics'>,
): ProcessOptions {
  return {
    name,
    host: config.HOST,
    port: config.PORT,
    trustProxy: config.TRUST_PROXY,
    drainMs: config.SHUTDOWN_DRAIN_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    corsOrigins: config.CORS_ORIGINS,
    loadShedding: { maxInFlight: config.MAX_REQUESTS_IN_FLIGHT, maxEventLoopDelayMs: config.MAX_EVENT_LOOP_DELAY_MS },
    logger,
    ...extra,
  };
}

/**
 * Runs an entry point; a failure to start is printed plainly and exits
 * non-zero. Stop signals are taken from here on (see stop-signals.ts), so one
 * that comes while the process starts closes it rather than killing it.
 */
export function runMain(main: () => Promise<unknown>): void {
  processStopSignals();
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
