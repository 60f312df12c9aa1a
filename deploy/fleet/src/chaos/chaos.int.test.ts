import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { infraEnv, uniqueSuffix } from '@shortlink/testing';
import { fleetDown, openFleet, type Fleet } from '../fleet';
import { fleetLayout } from '../fleet-layout';
import { formatReport } from './chaos-report';
import { runChaos } from './chaos-run';
import { FAULTS } from './faults';

/**
 * The chaos run's short form, so it cannot rot: the real fleet (three Kafka
 * nodes, every service as its own process, HAProxy in front) on ports of its
 * own, a Kafka node and a click projector killed under traffic (redirects,
 * creates and changes of links), and the same exactness verdicts as
 * `npm run chaos`.
 */
const ROOT = join(__dirname, '..', '..', '..', '..');
const adminUrl = () => {
  const url = new URL(infraEnv(process.env).DATABASE_URL);
  url.pathname = '/postgres';
  return url.toString();
};

let fleet: Fleet;
let stateDir: string;
const database = `shortlink_chaos_${uniqueSuffix().replace(/[^a-z0-9]/gi, '_')}`;

beforeAll(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'fleet-'));
  const databaseUrl = new URL(adminUrl());
  databaseUrl.pathname = `/${database}`;
  fleet = openFleet(
    fleetLayout({
      root: ROOT,
      stateDir,
      entryPort: 18080,
      databaseUrl: databaseUrl.toString(),
      redisUrl: infraEnv(process.env).REDIS_URL,
      visitorHashSecret: randomBytes(24).toString('base64url'),
      portOffset: 1000,
    }),
  );
});

afterAll(async () => {
  await fleetDown(fleet, () => undefined);
  rmSync(stateDir, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin.end();
}, 120_000);

it('loses no click, counts none twice, keeps every link redirecting and every change read back through a broker kill and a projector kill', async () => {
  const report = await runChaos(fleet, {
    faults: FAULTS.filter((f) => f.name === 'kafka-kill' || f.name === 'click-projector-kill'),
    redirectsPerSecond: 400,
    createsPerSecond: 10,
    changesPerSecond: 5,
    linksPerPhase: 20,
    steadyMs: 2000,
    resultsDir: join(stateDir, 'results'),
    log: () => undefined,
  });
  if (!report.ok) console.error(formatReport(report));
  // Exactness only: the timing rules (302 share, create latency, freshness)
  // are service levels for `npm run chaos` on a machine of its own, not tests.
  const failed = (p: (typeof report.phases)[number]) => p.checks.filter((c) => c.kind === 'exactness' && !c.ok);
  expect(report.phases.map((p) => [p.fault, failed(p)])).toEqual([
    ['kafka-kill', []],
    ['click-projector-kill', []],
  ]);
  expect(report.phases.every((p) => p.clicksExpected > 1000)).toBe(true);
}, 900_000);
