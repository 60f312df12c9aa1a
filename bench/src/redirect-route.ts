import { execFile } from 'node:child_process';
import { join } from 'node:path';

export interface RedirectRouteOptions {
  /** The checkout to compare with (built): its redirector, same probe, same machine, turns alternating. */
  against: string;
  /** Redirects a run answers; the second half is timed. */
  redirects: number;
  /** Pairs of runs, each checkout once a pair, which goes first alternating. */
  pairs: number;
}

interface ProbeRun {
  redirects: number;
  nsPerRedirect: number;
  p99Ns: number;
}

export interface RedirectRouteResult {
  against: string;
  pairs: number;
  redirects: number;
  /** Medians over the pairs, this checkout and the other. */
  nsPerRedirect: { here: number; against: number };
  p99Ns: { here: number; against: number };
  /** The median of each pair's ratio, this checkout over the other: 1.03 is 3 % slower here. */
  pairedRatio: number;
  p99PairedRatio: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
};

function probe(root: string, checkout: string, redirects: number): Promise<ProbeRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(root, 'bench/dist/redirect-route-probe.js'), checkout, String(redirects)],
      { cwd: root },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`redirect-route: ${stderr || error.message}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ProbeRun);
      },
    );
  });
}

/**
 * `redirect-route --against=<checkout>`: the redirect route of a cached link without rules, this checkout's against
 * another's, in process (fastify's `inject`, no sockets), runs alternating, each in a process of its own. On a small
 * machine the socket A/B of `redirect` spreads more between runs than the 3 % it would judge; with no client process
 * beside the server, this one spreads less, and a pair's ratio cancels the machine's drift
 * (docs/decisions/0083-the-redirect-route-measured-in-process.md).
 */
export async function benchRedirectRoute(root: string, options: RedirectRouteOptions): Promise<RedirectRouteResult> {
  const here: ProbeRun[] = [];
  const against: ProbeRun[] = [];
  for (let pair = 0; pair < options.pairs; pair++) {
    // Told apart by side, not by path: `--against` may name this checkout itself (an A/A run, the noise floor).
    const sides: [ProbeRun[], string][] = [
      [here, root],
      [against, options.against],
    ];
    for (const [runs, checkout] of pair % 2 === 0 ? sides : sides.reverse()) {
      runs.push(await probe(root, checkout, options.redirects));
    }
  }
  const ratio = (pick: (run: ProbeRun) => number) => median(here.map((run, i) => pick(run) / pick(against[i]!)));
  return {
    against: options.against,
    pairs: options.pairs,
    redirects: options.redirects,
    nsPerRedirect: {
      here: Math.round(median(here.map((r) => r.nsPerRedirect))),
      against: Math.round(median(against.map((r) => r.nsPerRedirect))),
    },
    p99Ns: {
      here: Math.round(median(here.map((r) => r.p99Ns))),
      against: Math.round(median(against.map((r) => r.p99Ns))),
    },
    pairedRatio: Number(ratio((r) => r.nsPerRedirect).toFixed(4)),
    p99PairedRatio: Number(ratio((r) => r.p99Ns).toFixed(4)),
  };
}
