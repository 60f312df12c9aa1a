import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * The project's commands (`npm run apikey`, `rebuild`, `db:migrate`, …) read
 * their command line the same way: `--help` prints the usage and settings and
 * exits 0; a wrong argument is one line on stderr, naming `--help`, and exit 2;
 * any other failure is its message and exit 1.
 */
export interface Command<O extends NonNullable<ParseArgsConfig['options']>> {
  /** How the user runs it: `npm run apikey --`. */
  name: string;
  /** The whole `--help` text: usage lines, options, settings. */
  help: string;
  options: O;
  allowPositionals?: boolean;
}

/** A mistake on the command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type CommandLine<O extends NonNullable<ParseArgsConfig['options']>> =
  | { kind: 'help' }
  | {
      kind: 'run';
      values: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>['values'];
      positionals: string[];
    };

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** Reads `argv` against the command's options; throws UsageError for an unknown option or a missing value. */
export function readCommandLine<O extends NonNullable<ParseArgsConfig['options']>>(
  command: Command<O>,
  argv: readonly string[],
): CommandLine<O> {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: { ...command.options, ...HELP },
      allowPositionals: true,
      strict: true,
    });
    if (!command.allowPositionals && positionals.length > 0) {
      throw new UsageError(`unexpected argument: ${positionals[0]}`);
    }
    return { kind: 'run', values: values as never, positionals };
  } catch (e) {
    if (e instanceof UsageError) throw e;
    // Node's texts run to several sentences; the first says what is wrong.
    const text = typeof (e as { message?: unknown }).message === 'string' ? (e as Error).message : String(e);
    const first = text.split(/\.\s/)[0]!.replace(/\.$/, '');
    throw new UsageError(first.charAt(0).toLowerCase() + first.slice(1));
  }
}

/** The one line a usage mistake prints. */
export const usageLine = (command: Pick<Command<never>, 'name'>, message: string): string =>
  `${message} (see: ${command.name} --help)`;

/**
 * Runs a command's main: `--help` prints `help` on stdout (exit 0); a
 * UsageError prints one line (exit 2); another error its message (exit 1).
 */
export function runCommand<O extends NonNullable<ParseArgsConfig['options']>>(
  command: Command<O>,
  main: (line: Extract<CommandLine<O>, { kind: 'run' }>) => Promise<void>,
  argv: readonly string[] = process.argv.slice(2),
): void {
  const fail = (e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`${usageLine(command, e.message)}\n`);
      process.exit(2);
    }
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  };
  try {
    const line = readCommandLine(command, argv);
    if (line.kind === 'help') {
      process.stdout.write(command.help.endsWith('\n') ? command.help : `${command.help}\n`);
      return;
    }
    main(line).catch(fail);
  } catch (e) {
    fail(e);
  }
}
