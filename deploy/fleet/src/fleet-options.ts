import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { FleetOptions } from './fleet-layout';

const ROOT = join(__dirname, '..', '..', '..');

const fleetEnv = z.object({
  FLEET_DIR: z.string().default(join(ROOT, '.fleet')),
  FLEET_PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  FLEET_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//)
    .default('postgres://postgres@127.0.0.1:5432/shortlink_fleet'),
  // The machine's Redis, in a database of the fleet's own (as Postgres's shortlink_fleet).
  FLEET_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//)
    .default('redis://127.0.0.1:6379/1'),
});

/** The settings of every fleet command, for its --help. */
export const FLEET_SETTINGS = `settings (environment):
  FLEET_DIR            the fleet's state: data, logs, pids (default .fleet/)
  FLEET_PORT           the entry point's port (default 8080)
  FLEET_DATABASE_URL   the fleet's Postgres database (default postgres://postgres@127.0.0.1:5432/shortlink_fleet)
  FLEET_REDIS_URL      the fleet's Redis database (default redis://127.0.0.1:6379/1)`;

/** The fleet's options from the environment of the command that runs it (the CLIs' entry points). */
export function fleetOptionsFrom(env: NodeJS.ProcessEnv): FleetOptions {
  const parsed = fleetEnv.parse(env);
  mkdirSync(parsed.FLEET_DIR, { recursive: true });
  // One visitor-hash key for the fleet's life, as an installation keeps one.
  const secretFile = join(parsed.FLEET_DIR, 'visitor-hash-secret');
  if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
  return {
    root: ROOT,
    stateDir: parsed.FLEET_DIR,
    entryPort: parsed.FLEET_PORT,
    databaseUrl: parsed.FLEET_DATABASE_URL,
    redisUrl: parsed.FLEET_REDIS_URL,
    visitorHashSecret: readFileSync(secretFile, 'utf8').trim(),
  };
}
