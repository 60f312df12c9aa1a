import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import { registerLz4Codec } from './lz4-codec';

/** The subset of a pino logger this library writes to. */
export interface KafkaLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface KafkaConnection {
  brokers: string[];
  clientId: string;
  logger?: KafkaLogger;
}

export function createKafka({ brokers, clientId, logger }: KafkaConnection): Kafka {
  registerLz4Codec();
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3000,
    // Bounded: a request that cannot be answered in seconds fails, rather than
    // holding an HTTP client for minutes.
    requestTimeout: 5000,
    retry: { initialRetryTime: 100, maxRetryTime: 2000, retries: 5 },
    logLevel: logger ? logLevel.INFO : logLevel.NOTHING,
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        if (!logger) return;
        const { message, ...rest } = log;
        const fields = { ...rest, component: 'kafkajs' };
        // Retries are bounded on purpose (an HTTP request must not wait minutes); an
        // append whose outcome is unknown is settled against the topic, not retried forever.
        if (message.startsWith('Limiting retries for the idempotent producer')) logger.debug(fields, message);
        else if (level === logLevel.ERROR) logger.error(fields, message);
        else if (level === logLevel.WARN) logger.warn(fields, message);
        else if (level === logLevel.INFO) logger.debug(fields, message);
        else logger.debug(fields, message);
      },
  });
}
