import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The checks `npm run docs:check` runs in lint, each shown to fail on a broken document: the
 * commands and diagrams (markdown-code-check.mjs) and the links (remark-validate-links, .remarkrc.mjs).
 */
const ROOT = resolve(__dirname, '..', '..');
const CODE_CHECK = join(__dirname, 'markdown-code-check.mjs');

let scratch: string;
let dir: string;
beforeEach(() => {
  // One level down, so that a path out of the repository's parent (`../../shared`) meets nothing of the machine's
  // own, such as a `shared` folder beside a clone in the temporary directory.
  scratch = mkdtempSync(join(tmpdir(), 'markdown-checks-'));
  dir = join(scratch, 'parent');
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  const file = join(dir, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
};
const run = (args: string[], cwd = ROOT) => {
  const { status, stdout, stderr } = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
  return { status, output: `${stdout}${stderr}` };
};
const fence = (lang: string, code: string) => `\`\`\`${lang}\n${code}\n\`\`\`\n`;

describe('markdown-code-check: npm commands name scripts of package.json', () => {
  it('passes the root package’s scripts in every spelling, and ignores placeholders and arguments', () => {
    const file = write(
      'ok.md',
      'Run `npm start`, `npm test`, `npm run -s apikey -- create`, `npm run <script>` or `npm run`.\n\n' +
        fence(
          'sh',
          [
            'npm install && npm start   # or: npm run fleet:up, then npm run chaos',
            'KEY=$(npm run -s apikey -- create --name me --plan free)',
            'npm run build --silent; npm -s run typecheck | tee out',
            'npm run test:unit -- --testPathPatterns nope-is-an-argument',
          ].join('\n'),
        ),
    );
    expect(run([CODE_CHECK, file])).toEqual({ status: 0, output: expect.stringContaining('ok: 1 Markdown files') });
  });

  it.each([
    ['inline code', 'Then `npm run tpyecheck`.\n', 1],
    ['a fenced block', `# Title\n\n${fence('sh', 'npm install\nnpm run build && npm run fleet:upp')}`, 5],
    ['a shell comment', fence('sh', 'npm start # or: npm run no-such-script'), 2],
    ['a workspace', fence('sh', 'npm run build -w @shortlink/postgres'), 2],
  ])('fails on an unknown script in %s, naming the file and line', (_, text, line) => {
    const file = write('bad.md', text);
    const { status, output } = run([CODE_CHECK, file]);
    expect(status).toBe(1);
    expect(output).toMatch(new RegExp(`bad\\.md:${line}: "[\\w:-]+" is not a script of`));
    expect(output).toContain('1 fault(s)');
  });
});

describe('markdown-code-check: Mermaid diagrams parse', () => {
  const FLOWCHART = [
    'flowchart LR',
    '  client([Client]) --> api[Write API]',
    '  api -->|claims + outbox| pg[(Postgres)]',
    '  pg -. NOTIFY .-> redirector',
    '  subgraph brokers [Kafka]',
    '    topic[[shortlink.links]]',
    '  end',
  ].join('\n');

  it('passes a flowchart and other diagram types', () => {
    const file = write('ok.md', fence('mermaid', FLOWCHART) + fence('mermaid', 'sequenceDiagram\n  A->>B: hi'));
    expect(run([CODE_CHECK, file])).toEqual({ status: 0, output: expect.stringContaining('2 Mermaid diagrams') });
  });

  it('fails on each broken diagram, naming the file and its fence’s line', () => {
    const broken = [
      'flowchart LR\n  A[foo --> B', // an unclosed bracket
      'flowchrt LR\n  A --> B', // an unknown diagram type
      'sequenceDiagram\n  A->>: hi', // an arrow to no one
    ];
    const file = write('bad.md', `# Title\n\n${[FLOWCHART, ...broken].map((d) => fence('mermaid', d)).join('\n')}`);
    const { status, output } = run([CODE_CHECK, file]);
    expect(status).toBe(1);
    expect(output.match(/bad\.md:\d+: the Mermaid diagram does not parse/g)).toEqual([
      'bad.md:13: the Mermaid diagram does not parse',
      'bad.md:18: the Mermaid diagram does not parse',
      'bad.md:23: the Mermaid diagram does not parse',
    ]);
    expect(output).toContain('3 fault(s)');
  });
});

describe('remark-validate-links with .remarkrc.mjs: relative links and anchors resolve', () => {
  /**
   * A copy of the repository's configuration in a folder of its own, with `../shared` beside it as
   * CI has: the configuration skips links there by where it lives.
   */
  const remark = (...files: string[]) => {
    copyFileSync(join(ROOT, '.remarkrc.mjs'), join(dir, 'repo', '.remarkrc.mjs'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'repo', 'node_modules'));
    const cli = join(ROOT, 'node_modules', 'remark-cli', 'cli.js');
    return run([cli, '--frail', '--quiet', '--no-stdout', '--no-color', ...files], join(dir, 'repo'));
  };

  beforeEach(() => {
    write('repo/docs/guide.md', '# Guide\n\n## Rate limits\n\nBack to [the README](../README.md#a-tour).\n');
  });

  it('passes links to files, headings in other files and its own, the contract beside the clone, and the web', () => {
    write(
      'repo/README.md',
      '# Shortlink\n\n## A tour\n\nSee [the guide](docs/guide.md), [limits](docs/guide.md#rate-limits), ' +
        '[the tour](#a-tour), [a line](docs/guide.md#L3), [the contract](../shared/spec/short-link-api.md#errors) ' +
        'and [the web](https://example.com/x).\n',
    );
    expect(remark('README.md', 'docs/guide.md')).toEqual({ status: 0, output: '' });
  });

  it.each([
    ['a missing file', '[guide](docs/gide.md)', 'Cannot find file `docs/gide.md`'],
    [
      'a missing heading in another file',
      '[limits](docs/guide.md#rate-limit)',
      'Cannot find heading for `#rate-limit`',
    ],
    ['a missing heading in the same file', '[tour](#the-tour)', 'Cannot find heading for `#the-tour`'],
    ['a path out of the repository', '[spec](../../shared/spec/short-link-api.md)', 'Cannot find file'],
  ])('fails on %s', (_, link, message) => {
    write('repo/README.md', `# Shortlink\n\n## A tour\n\nSee ${link}.\n`);
    const { status, output } = remark('README.md', 'docs/guide.md');
    expect(status).toBe(1);
    expect(output).toContain(message);
  });
});
