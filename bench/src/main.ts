/**
 * `npm run bench [-- redirect|click-cost|click-worker|create|bulk|ingestion|analytics|account-analytics|dashboard|export|list|previews|preview-shares|preview-memory|rebuild|embedded|cold-cache|webhooks|rules|redirect-route ...] [--quick] [--node-arg=<flag> ...] [--addresses=zipf|distinct|loopback] [--webhook-load=<x>] [--against=<checkout>]`
 *
 * Runs each benchmark against the local stack (`npm run infra:up`), each in scratch databases and topics, prints a
 * table and writes it as JSON under bench/results/. `--quick` runs every part for about a second (the smoke test's
 * guard against rot; its figures mean nothing). `embedded` loads `npm start` with no servers configured.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { loadConfig, runCommand, UsageError } from '@shortlink/config';
import { benchAccountAnalytics } from './account-analytics';
import { benchAnalytics } from './analytics';
import { benchBulk } from './bulk';
import { benchClickCost } from './click-cost';
import { benchClickWorker } from './click-worker';
import { CLIENT_ADDRESSES, type ClientAddresses } from './client-addresses';
import { benchColdCache } from './cold-cache';
import { benchCreate } from './create';
import { benchDashboard } from './dashboard';
import { benchEmbedded } from './embedded';
import { benchExport } from './export';
import { benchIngestion } from './ingestion';
import { benchList } from './list';
import { benchPreviewMemory } from './preview-memory';
import { benchPreviews } from './previews';
import { benchPreviewShares } from './preview-shares';
import { benchRebuild } from './rebuild';
import { benchRedirect } from './redirect';
import { benchRules } from './rules';
import { benchRedirectRoute } from './redirect-route';
import { openBenchStack } from './stack';
import { benchWebhooks } from './webhooks';
import { formatReport, type Report } from './report';

const PARTS = [
  'redirect',
  'click-cost',
  'click-worker',
  'create',
  'bulk',
  'ingestion',
  'analytics',
  'account-analytics',
  'dashboard',
  'export',
  'list',
  'previews',
  'preview-shares',
  'preview-memory',
  'rebuild',
  'embedded',
  'cold-cache',
  'webhooks',
  'rules',
  'redirect-route',
] as const;
type Part = (typeof PARTS)[number];
/** Parts that are the redirect thread's arithmetic alone: no servers. */
const STACKLESS: readonly Part[] = ['rules', 'redirect-route'];
const ROOT = join(__dirname, '..', '..');

const HELP = `usage: npm run bench [-- <part> ...] [--quick] [--out <file>] [--node-arg=<flag> ...] [--addresses=${CLIENT_ADDRESSES.join('|')}] [--webhook-load=<x>]

Starts the local infrastructure (npm run infra:up), runs each part (every part unless
named) in scratch databases and topics, prints a table and writes it as JSON under
bench/results/ (or --out).

parts: ${PARTS.join(', ')}

  --quick              about a second per part: a check that the bench runs, not figures
  --out <file>         where the JSON report goes
  --node-arg=<flag>    a Node or V8 flag for every process the bench starts (repeatable)
  --addresses=<kind>   where redirect and click-cost clicks come from (default zipf)
  --webhook-load=<x>   the webhooks part's event rates times x (default 1: 2,000 link events/s, 20,000 clicks/s)
  --against=<checkout> redirect-route: the built checkout to compare with (default this one)

settings (environment):
  KAFKA_BROKERS, DATABASE_URL, CLICKHOUSE_URL, CLICKHOUSE_USER, CLICKHOUSE_PASSWORD, REDIS_URL
                       the servers (default: infra:up's, on 127.0.0.1)
  BENCH_PROFILE        set: every service under test writes a V8 CPU profile to bench/profiles/`;

const benchEnv = z.object({
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:9092'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
    .default('postgres://postgres@127.0.0.1:5432/shortlink'),
  CLICKHOUSE_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8123'),
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'expected a redis:// URL')
    .default('redis://127.0.0.1:6379'),
  BENCH_PROFILE: z.string().optional(),
});

const command = {
  name: 'npm run bench --',
  help: HELP,
  allowPositionals: true,
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string' },
    // `--node-arg=--single-threaded-gc`: a Node or V8 flag for every process the bench starts, to compare runtime settings.
    'node-arg': { type: 'string', multiple: true, default: [] as string[] },
    // `--addresses=distinct`: where redirect and click-cost clicks come from (client-addresses.ts).
    addresses: { type: 'string', default: 'zipf' },
    // `--webhook-load=0.2`: the webhooks part's event rates scaled, to find the load the dispatcher keeps up with.
    'webhook-load': { type: 'string', default: '1' },
    // `--against=../base`: the checkout (built) the redirect-route part compares this one with; default itself.
    against: { type: 'string' },
  },
} as const;

runCommand(command, async ({ values, positionals }) => {
  const addresses = values.addresses as ClientAddresses;
  if (!CLIENT_ADDRESSES.includes(addresses)) {
    throw new UsageError(`unknown --addresses=${values.addresses}; choose from ${CLIENT_ADDRESSES.join(', ')}`);
  }
  const webhookLoad = Number(values['webhook-load']);
  if (!(webhookLoad > 0 && webhookLoad <= 10)) {
    throw new UsageError(`--webhook-load=${values['webhook-load']}: expected a fraction of the goal's load, above 0`);
  }
  const unknown = positionals.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new UsageError(`unknown part ${unknown.join(', ')}; the parts are ${PARTS.join(', ')}`);
  const parts: Part[] = positionals.length > 0 ? (positionals as Part[]) : [...PARTS];
  const quick = values.quick;
  const { BENCH_PROFILE, ...env } = loadConfig(benchEnv, process.env);
  // After the command line is read: `--help` and a mistake start nothing; nor does a run of parts needing no stack.
  if (parts.some((part) => !STACKLESS.includes(part))) {
    execFileSync('bash', [join(ROOT, 'deploy', 'local', 'infra.sh'), 'up'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }

  const report: Report = {
    date: new Date().toISOString(),
    quick,
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
    },
    nodeArgs: values['node-arg'],
    results: {},
  };
  for (const part of parts) {
    if (part === 'embedded') {
      process.stderr.write(`[bench] ${part}…\n`);
      report.results.embedded = await benchEmbedded(ROOT, {
        durationSeconds: quick ? 1 : 10,
        connections: 50,
        slugs: quick ? 50 : 1000,
      });
      continue;
    }
    if (part === 'rules') {
      process.stderr.write(`[bench] ${part}…\n`);
      report.results.rules = await benchRules(ROOT, { calls: quick ? 20_000 : 1_000_000, rounds: quick ? 1 : 5 });
      continue;
    }
    if (part === 'redirect-route') {
      process.stderr.write(`[bench] ${part}…\n`);
      report.results.redirectRoute = await benchRedirectRoute(ROOT, {
        against: values.against ?? ROOT,
        redirects: quick ? 2000 : 40_000,
        pairs: quick ? 1 : 12,
      });
      continue;
    }
    if (part === 'preview-memory') {
      process.stderr.write(`[bench] ${part}…\n`);
      report.results.previewMemory = await benchPreviewMemory(ROOT, { links: quick ? 2000 : 100_000 });
      continue;
    }
    // BENCH_PROFILE=1: every service under test writes a V8 CPU profile to bench/profiles/.
    const stack = await openBenchStack(
      ROOT,
      env,
      BENCH_PROFILE ? join(ROOT, 'bench', 'profiles', part) : undefined,
      values['node-arg'],
    );
    try {
      process.stderr.write(`[bench] ${part}…\n`);
      if (part === 'redirect') {
        report.results.redirect = await benchRedirect(ROOT, stack, {
          slugs: quick ? 50 : 1000,
          durationSeconds: quick ? 1 : 10,
          connections: 50,
          rounds: quick ? 1 : 2,
          addresses,
        });
      } else if (part === 'click-cost') {
        report.results.clickCost = await benchClickCost(ROOT, stack, {
          slugs: quick ? 50 : 1000,
          ratePerSecond: quick ? 1000 : 10_000,
          durationSeconds: quick ? 1 : 10,
          connections: 50,
          rounds: quick ? 1 : 2,
          addresses,
        });
      } else if (part === 'click-worker') {
        report.results.clickWorker = await benchClickWorker(ROOT, stack, {
          links: quick ? 50 : 1000,
          ratePerSecond: quick ? 1000 : 10_000,
          durationSeconds: quick ? 1 : 10,
          rounds: quick ? 1 : 3,
          warmUpSeconds: quick ? 1 : 45,
          addresses,
        });
      } else if (part === 'create') {
        report.results.create = await benchCreate(ROOT, stack, { durationSeconds: quick ? 1 : 10, connections: 50 });
      } else if (part === 'bulk') {
        report.results.bulk = await benchBulk(ROOT, stack, { durationSeconds: quick ? 1 : 10, connections: 10 });
      } else if (part === 'ingestion') {
        report.results.ingestion = await benchIngestion(stack, {
          clicks: quick ? 2000 : 500_000,
          freshnessSamples: quick ? 2 : 50,
          backgroundPerSecond: quick ? 500 : 5000,
        });
      } else if (part === 'list') {
        report.results.list = await benchList(stack, {
          links: quick ? 2000 : 1_000_000,
          otherLinks: quick ? 200 : 100_000,
          requests: quick ? 3 : 200,
        });
      } else if (part === 'cold-cache') {
        report.results.coldCache = await benchColdCache(ROOT, stack, {
          links: quick ? 20_000 : 10_000_000,
          cacheSize: quick ? 2000 : 1_000_000,
          exponent: 1.1,
          warmSlugs: quick ? 50 : 1000,
          durationSeconds: quick ? 1 : 10,
          rounds: quick ? 1 : 2,
          connections: 50,
        });
      } else if (part === 'previews') {
        report.results.previews = await benchPreviews(stack, {
          backlog: quick ? 2000 : 100_000,
          hosts: quick ? 4 : 24,
          pagesPerHost: quick ? 20 : 200,
          freshPerSecond: 4,
          hangingPages: !quick,
        });
      } else if (part === 'preview-shares') {
        report.results.previewShares = await benchPreviewShares(stack, {
          bursts: quick ? 3 : 30,
          linksPerBurst: quick ? 20 : 100,
          intervalMs: 2000,
        });
      } else if (part === 'webhooks') {
        report.results.webhooks = await benchWebhooks(ROOT, stack, {
          accounts: quick ? 10 : 500,
          endpointsPerAccount: 2,
          linksPerAccount: 20,
          linkEventsPerSecond: Math.round((quick ? 100 : 2000) * webhookLoad),
          clicksPerSecond: Math.round((quick ? 1000 : 20_000) * webhookLoad),
          warmUpSeconds: quick ? 0 : 5,
          durationSeconds: quick ? 1 : 30,
          deadEndpoints: quick ? 2 : 100,
          drainLimitSeconds: quick ? 30 : 60,
        });
      } else if (part === 'dashboard') {
        // The analytics part's link, opened in Chromium: the page's readiness and requests against that part's p99.
        report.results.dashboard = await benchDashboard(ROOT, stack, {
          clicks: quick ? 10_000 : 10_000_000,
          days: 90,
          visitors: quick ? 1000 : 200_000,
          analyticsRequests: quick ? 3 : 200,
          runs: quick ? 2 : 20,
          warmUpRuns: quick ? 1 : 3,
          linkPageWaitMs: quick ? 3000 : 10_000,
        });
      } else if (part === 'account-analytics') {
        report.results.accountAnalytics = await benchAccountAnalytics(stack, {
          clicks: quick ? 10_000 : 10_000_000,
          links: quick ? 2000 : 100_000,
          tags: 20,
          days: 90,
          visitors: quick ? 1000 : 200_000,
          requests: quick ? 3 : 30,
        });
      } else if (part === 'export') {
        report.results.export = await benchExport(stack, { clicks: quick ? 10_000 : 10_000_000, links: 100 });
      } else if (part === 'rebuild') {
        report.results.rebuild = await benchRebuild(ROOT, stack, { links: quick ? 2000 : 1_000_000 });
      } else {
        report.results.analytics = await benchAnalytics(stack, {
          clicks: quick ? 10_000 : 10_000_000,
          days: 90,
          visitors: quick ? 1000 : 200_000,
          requests: quick ? 3 : 200,
        });
      }
    } finally {
      // A part's figures are kept when its scratch databases cannot be dropped (an endpoint too loaded to answer).
      await stack.close().catch((err: unknown) => {
        process.stderr.write(`[bench] cleaning up after ${part} failed, figures kept: ${String(err)}\n`);
      });
    }
  }

  process.stdout.write(`${formatReport(report)}\n`);
  const dir = join(ROOT, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  const file = values.out ?? join(dir, `${report.date.replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(`[bench] written to ${file}\n`);
});
