import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startProcess } from '@shortlink/testing';
import type { LoadSummary } from './load';
import { runLoad, round } from './measure';
import { CHROME_UA } from './redirect';
import { createLinks } from './stack';

const run = promisify(execFile);

interface CreateFigures {
  linksPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  created: number;
  failed: number;
}

/** The offered load at which the embedded create's latency is judged (its throughput goal). */
export const EMBEDDED_CREATE_RATE = 1000;

export interface EmbeddedResult {
  /** As fast as 50 connections go: the throughput. */
  create: CreateFigures;
  /** 1,000 links/s offered over the same 50 connections: the latency at the goal's rate. */
  createAtRate?: CreateFigures & { offeredPerSecond: number };
  redirect: { requestsPerSecond: number; p50Ms: number; p99Ms: number; redirects: number; failed: number };
}

/**
 * `npm start` as a new user runs it (PGlite, chdb and the embedded log in a fresh DATA_DIR): creates at 50 connections,
 * then warm redirects of browser traffic with every click recorded, as the servers mode's parts do, and creates again
 * at the goal's 1,000 links/s: at saturation latency is mostly the queue 50 connections make (Little's law), so the
 * tail is judged at the throughput the goal asks for.
 */
export async function benchEmbedded(
  root: string,
  options: { durationSeconds: number; connections: number; slugs: number },
): Promise<EmbeddedResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-embedded-'));
  const env = {
    DATA_DIR: dataDir,
    PUBLIC_BASE_URL: 'https://sho.rt',
    LOG_LEVEL: 'warn',
    // One Pro key's load: counted in memory as every request is, under a limit it never reaches.
    RATE_LIMIT_PRO_PER_MINUTE: '10000000',
  };
  const app = await startProcess('deploy/standalone/dist/main.js', env, { root });
  try {
    const { stdout } = await run(
      process.execPath,
      [join(root, 'libs/accounts/dist/apikey-cli.js'), 'create', '--name', 'bench', '--plan', 'pro'],
      { cwd: root, env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir } },
    );
    const key = stdout.trim().split('\n').at(-1) ?? '';

    const create = (durationSeconds: number, ratePerSecond?: number) =>
      runLoad(root, {
        ratePerSecond,
        url: app.url,
        connections: options.connections,
        durationSeconds,
        method: 'POST',
        paths: ['/api/v1/links'],
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/landing?utm_source=bench', tag: 'bench' }),
      });
    await create(Math.min(2, options.durationSeconds)); // warm-up
    const created = await create(options.durationSeconds);
    const atRate = await create(options.durationSeconds, EMBEDDED_CREATE_RATE);

    const links = await createLinks(app.url, key, options.slugs, 'e');
    const redirect = (durationSeconds: number) =>
      runLoad(root, {
        url: app.url,
        connections: options.connections,
        durationSeconds,
        paths: [...links.keys()].map((slug) => `/${slug}`),
        headers: { 'user-agent': CHROME_UA, accept: 'text/html' },
      });
    await redirect(Math.min(3, options.durationSeconds)); // every slug cached
    const redirected = await redirect(options.durationSeconds);

    const figures = (load: LoadSummary): CreateFigures => {
      const ok = load.statusCounts['201'] ?? 0;
      return {
        linksPerSecond: round(ok / options.durationSeconds),
        p50Ms: load.latencyP50Ms,
        p99Ms: load.latencyP99Ms,
        created: ok,
        failed: load.requests - ok + load.errors + load.timeouts,
      };
    };
    const redirects = redirected.statusCounts['302'] ?? 0;
    return {
      create: figures(created),
      createAtRate: { ...figures(atRate), offeredPerSecond: EMBEDDED_CREATE_RATE },
      redirect: {
        requestsPerSecond: redirected.requestsPerSecond,
        p50Ms: redirected.latencyP50Ms,
        p99Ms: redirected.latencyP99Ms,
        redirects,
        failed: redirected.requests - redirects + redirected.errors + redirected.timeouts,
      },
    };
  } finally {
    await app.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
