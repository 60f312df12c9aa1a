import type { ProcessOptions } from './service';

/** The HTTP part of a process's validated configuration (see @shortlink/config httpEnv and logEnv). */
export interface HttpProcessConfig {
  HOST: string;
  PORT: number;
  TRUST_PROXY: boolean;
  LOG_LEVEL: string;
}

export function processOptionsFrom(
  name: string,
  config: HttpProcessConfig,
  extra: Partial<ProcessOptions> = {},
): ProcessOptions {
  return {
    name,
    host: config.HOST,
    port: config.PORT,
    trustProxy: config.TRUST_PROXY,
    logger: { level: config.LOG_LEVEL },
    ...extra,
  };
}

/** Runs an entry point; a failure to start is printed plainly and exits non-zero. */
export function runMain(main: () => Promise<unknown>): void {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
