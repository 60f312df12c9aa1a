import { readCommandLine, usageLine, UsageError } from './command-line';

const command = {
  name: 'npm run thing --',
  help: 'usage: npm run thing',
  allowPositionals: true,
  options: { name: { type: 'string' }, json: { type: 'boolean' } },
} as const;

describe('a command line', () => {
  it('asks for help with --help or -h, wherever it stands', () => {
    expect(readCommandLine(command, ['--help'])).toEqual({ kind: 'help' });
    expect(readCommandLine(command, ['list', '-h'])).toEqual({ kind: 'help' });
  });

  it('gives the options and positionals', () => {
    expect(readCommandLine(command, ['create', '--name', 'me', '--json'])).toEqual({
      kind: 'run',
      values: { name: 'me', json: true },
      positionals: ['create'],
    });
  });

  it.each([
    [['--bogus'], "unknown option '--bogus'"],
    [['--name'], "option '--name <value>' argument missing"],
  ])('refuses %j in one line: %s', (argv, message) => {
    expect(() => readCommandLine(command, argv)).toThrow(new UsageError(message));
  });

  it('refuses a positional where the command takes none', () => {
    expect(() => readCommandLine({ ...command, allowPositionals: false }, ['extra'])).toThrow(
      'unexpected argument: extra',
    );
  });

  it('names --help in the line a mistake prints', () => {
    expect(usageLine(command, 'unknown option')).toBe('unknown option (see: npm run thing -- --help)');
  });
});
