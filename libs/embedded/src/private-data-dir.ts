import { chmod, mkdir } from 'node:fs/promises';

/**
 * DATA_DIR made, or made again, readable by its owner alone. It holds the
 * Postgres files (API key hashes, the visitor-hash secret, which makes every
 * visitor hash reversible by trying each IPv4 address), the event log and the
 * ClickHouse data; PGlite writes its files world-writable (0666), so the
 * directory is what keeps the machine's other users out of them.
 */
export async function privateDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
}
