// `npm start`'s build step: `tsc -b`, silent when dist/ is fresh (a no-op build
// takes under a second). A build still running after BUSY_MS says so in one line,
// and how long it took once done, so a first start is not a silent minute.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUSY_MS = 2000;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const started = Date.now();
let told = false;
const notice = setTimeout(() => {
  told = true;
  // A clean `tsc -b` takes about 30 s on 2 cores (AMD EPYC), and under a second once dist/ is built.
  process.stderr.write('Building shortlink (tsc -b): a first build takes about 30 s, later ones a second…\n');
}, BUSY_MS);

spawn(process.execPath, [tsc, '-b'], { cwd: ROOT, stdio: 'inherit' }).on('exit', (code, signal) => {
  clearTimeout(notice);
  if (told && code === 0) process.stderr.write(`Built in ${Math.round((Date.now() - started) / 1000)} s.\n`);
  process.exit(code ?? (signal ? 1 : 0));
});
