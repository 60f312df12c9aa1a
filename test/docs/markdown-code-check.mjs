// @ts-check
/**
 * `npm run docs:code`: the commands and diagrams in the Markdown are real. Every `npm run <script>`,
 * `npm start` and `npm test` in a code block or inline code names a script of the package it runs in,
 * and every ```mermaid block parses. Checks the files given, or every tracked *.md; exits 1 on a fault.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** @param {string} dir @returns {{ name?: string, scripts?: Record<string, string>, workspaces?: string[] }} */
const readPackage = (dir) => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));

/** Scripts by package, keyed by a workspace's name and its folder; '' is the root package. */
const scriptsByPackage = () => {
  const root = readPackage(ROOT);
  /** @type {Map<string, Set<string>>} */
  const packages = new Map([['', new Set(Object.keys(root.scripts ?? {}))]]);
  /** @type {string[]} */
  const workspaces = [];
  for (const pattern of root.workspaces ?? []) {
    const dirs = pattern.endsWith('/*')
      ? readdirSync(path.join(ROOT, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
      : [pattern];
    for (const dir of dirs) {
      let pkg;
      try {
        pkg = readPackage(path.join(ROOT, dir));
      } catch {
        continue;
      }
      const scripts = new Set(Object.keys(pkg.scripts ?? {}));
      workspaces.push(dir);
      packages.set(dir, scripts);
      if (pkg.name) packages.set(pkg.name, scripts);
    }
  }
  return { packages, workspaces };
};

const RUN = new Set(['run', 'run-script', 'rum', 'urn']);
const LIFECYCLE = new Map([
  ['start', 'start'],
  ['stop', 'stop'],
  ['test', 'test'],
  ['t', 'test'],
  ['tst', 'test'],
]);
/** Flags that take the next word as their value. */
const VALUED = new Set(['-w', '--workspace', '--prefix']);
const SCRIPT_NAME = /^[\w@./:-]+$/;

/**
 * The npm commands in one piece of code: the script each runs, the line it is on (from 0), and its
 * workspace ('' for the root package, '*' for every workspace). Commands in shell comments count:
 * a reader follows "# or: npm run fleet:up" too.
 * @param {string} code
 */
const npmScriptsIn = (code) => {
  /** @type {Array<{ script: string, line: number, workspace: string }>} */
  const found = [];
  code.split('\n').forEach((text, line) => {
    for (const command of text.split(/&&|\|\||[;|&()`]|\s#/)) {
      const words = command.trim().split(/\s+/);
      const start = words.indexOf('npm');
      if (start === -1) continue;
      let workspace = '';
      /** @type {string | undefined} */
      let subcommand;
      /** @type {string | undefined} */
      let script;
      for (let i = start + 1; i < words.length; i++) {
        const word = /** @type {string} */ (words[i]);
        if (word === '--') break;
        if (word === '-ws' || word === '--workspaces') workspace = '*';
        else if (word.startsWith('--workspace=')) workspace = word.slice('--workspace='.length);
        else if (VALUED.has(word)) {
          if (word !== '--prefix') workspace = words[i + 1] ?? '';
          i++;
        } else if (word.startsWith('-')) continue;
        else if (subcommand === undefined) subcommand = word;
        else if (script === undefined && RUN.has(subcommand)) script = word.replace(/[,.;:!?'"]+$/, '');
      }
      if (subcommand === undefined) continue;
      const lifecycle = LIFECYCLE.get(subcommand);
      if (lifecycle) script = lifecycle;
      else if (!RUN.has(subcommand)) continue;
      // `npm run` alone lists the scripts; `npm run <script>` is a placeholder, not a name.
      if (script === undefined || !SCRIPT_NAME.test(script)) continue;
      found.push({ script, line, workspace });
    }
  });
  return found;
};

/** @typedef {{ type: string, value?: string, lang?: string | null, position?: { start: { line: number } }, children?: MdNode[] }} MdNode */

/** @param {MdNode} node @param {(node: MdNode) => void} visit */
const walk = (node, visit) => {
  visit(node);
  for (const child of node.children ?? []) walk(child, visit);
};

const loadMermaid = async () => {
  // Mermaid sanitises labels with DOMPurify, which needs a window: jsdom gives it one, with no network.
  const { JSDOM } = await import('jsdom');
  const { window } = new JSDOM('');
  Object.assign(globalThis, { window, document: window.document });
  const { default: mermaid } = await import('mermaid');
  mermaid.initialize({ startOnLoad: false, logLevel: 'fatal' });
  return mermaid;
};

const trackedMarkdown = () =>
  execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean)
    .map((file) => path.join(ROOT, file));

const main = async () => {
  const files = process.argv.length > 2 ? process.argv.slice(2).map((file) => path.resolve(file)) : trackedMarkdown();
  const { packages, workspaces } = scriptsByPackage();
  /** @type {string[]} */
  const faults = [];
  /** @type {Awaited<ReturnType<typeof loadMermaid>> | undefined} */
  let mermaid;
  let diagrams = 0;
  let commands = 0;
  for (const file of files) {
    const where = path.relative(process.cwd(), file);
    const tree = /** @type {MdNode} */ (fromMarkdown(readFileSync(file, 'utf8')));
    /** @type {MdNode[]} */
    const codes = [];
    walk(tree, (node) => {
      if (node.type === 'code' || node.type === 'inlineCode') codes.push(node);
    });
    for (const node of codes) {
      const line = node.position?.start.line ?? 0;
      const value = node.value ?? '';
      // A fenced block's code starts on the line after its fence.
      const first = node.type === 'code' ? line + 1 : line;
      for (const { script, line: offset, workspace } of npmScriptsIn(value)) {
        commands++;
        const at = `${where}:${first + offset}`;
        const targets = workspace === '*' ? workspaces : [workspace];
        const unknown = targets.filter((target) => !packages.has(target));
        const lacking = targets.filter((target) => packages.get(target)?.has(script) === false);
        if (unknown.length > 0) faults.push(`${at}: no workspace ${unknown.join(', ')} (npm -w)`);
        if (lacking.length > 0)
          faults.push(
            `${at}: "${script}" is not a script of ${lacking.map((t) => t || 'the root').join(', ')} package.json`,
          );
      }
      if (node.type === 'code' && node.lang === 'mermaid') {
        diagrams++;
        mermaid ??= await loadMermaid();
        try {
          await mermaid.parse(value);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          faults.push(`${where}:${line}: the Mermaid diagram does not parse:\n${message.replace(/^/gm, '    ')}`);
        }
      }
    }
  }
  for (const fault of faults) console.error(fault);
  console.error(
    `${faults.length === 0 ? 'ok' : `${faults.length} fault(s)`}: ${files.length} Markdown files, ` +
      `${commands} npm commands, ${diagrams} Mermaid diagrams`,
  );
  process.exitCode = faults.length === 0 ? 0 : 1;
};

await main();
