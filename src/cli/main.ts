// credprov's entry: pick the command, run it, turn errors into one line
// (and, under --json, into one JSON document on stdout).
import { interruptInProgress } from './signals.ts';
import { CredprovError, UsageError } from '../core/errors.ts';
import { stderrLogger } from '../core/logger.ts';
import { CREDPROV_VERSION } from '../core/package-layout.ts';
import { closest } from './flags.ts';
import { COMMANDS, type CommandEntry } from './commands.ts';
import type { CommandContext } from './command.ts';
import { errorJson, printError, printJson } from './output.ts';

/** The exit codes every command uses; docs/exit-codes-and-json.md is the same table. */
export const EXIT_CODES = {
  ok: 0,
  failed: 1,
  usage: 2,
  harness: 3,
  interrupted: 130,
} as const;

export function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.path.join(' ').length));
  return [
    'credprov: end-to-end tests and conformance for Kubernetes credential plugins',
    '',
    'Usage: credprov <command> [flags]   (credprov <command> --help for its flags)',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    'Global flags: --json (one JSON document on stdout: the result, or {"error",...} on an error),',
    '              --verbose (debug logs, stacks on error), --version, --help',
    'Exit codes: 0 ok (every MUST check passed; the answer is yes), 1 a MUST check failed (the answer is no),',
    '            2 usage or input error (nothing was run), 3 harness or environment error,',
    '            130 interrupted by Ctrl-C (143 by SIGTERM), after cleaning up',
    '',
  ].join('\n');
}

function findCommand(words: string[]): { entry: CommandEntry; rest: string[] } | undefined {
  let best: { entry: CommandEntry; rest: string[] } | undefined;
  for (const entry of COMMANDS) {
    if (entry.path.every((w, i) => words[i] === w) && (!best || entry.path.length > best.entry.path.length)) {
      best = { entry, rest: words.slice(entry.path.length) };
    }
  }
  return best;
}

/** Global flags are taken out before a command parses its own; everything after `--` is left alone. */
function globalFlags(argv: string[]): { args: string[]; verbose: boolean; json: boolean } {
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  const tail = end < 0 ? [] : argv.slice(end);
  const isGlobal = (a: string) => a === '--verbose' || a === '-v' || a === '--json';
  return {
    args: [...head.filter((a) => !isGlobal(a)), ...tail],
    verbose: head.includes('--verbose') || head.includes('-v'),
    json: head.includes('--json'),
  };
}

export async function main(argv: string[], ctxOverrides: Partial<CommandContext> = {}): Promise<number> {
  const { args, verbose, json } = globalFlags(argv);
  const ctx: CommandContext = {
    log: stderrLogger(verbose ? 'debug' : 'info'),
    verbose,
    json,
    stdout: (s) => process.stdout.write(s),
    env: process.env,
    cwd: process.cwd(),
    ...ctxOverrides,
  };
  const err = (s: string) => process.stderr.write(s);
  try {
    return await dispatch(args, ctx);
  } catch (e) {
    // Ctrl-C made the command fail (an up stopped between steps): the interrupt handler is cleaning up and exits 130 (143).
    if (interruptInProgress()) return EXIT_CODES.interrupted;
    const code = reportError(e, verbose, err);
    if (ctx.json) printJson(ctx, errorJson(e, code));
    return code;
  }
}

async function dispatch(args: string[], ctx: CommandContext): Promise<number> {
  const help = args[0] === '--help' || args[0] === '-h' || args[0] === 'help';
  if (args.length === 0 && !ctx.json) {
    ctx.stdout(helpText());
    return EXIT_CODES.usage;
  }
  if (args.length === 0)
    throw new UsageError('no command given', { hint: "run 'credprov --help' for the list of commands" });
  if (help) {
    if (ctx.json)
      printJson(ctx, {
        usage: helpText(),
        commands: COMMANDS.map((c) => ({ command: c.path.join(' '), summary: c.summary })),
      });
    else ctx.stdout(helpText());
    return EXIT_CODES.ok;
  }
  if (args[0] === '--version') {
    if (ctx.json) printJson(ctx, { name: 'credprov', version: CREDPROV_VERSION, node: process.version });
    else ctx.stdout(`credprov ${CREDPROV_VERSION}\n`);
    return EXIT_CODES.ok;
  }
  const found = findCommand(args);
  if (!found) {
    const groups = COMMANDS.filter((c) => c.path[0] === args[0] && c.path.length > 1);
    if (groups.length > 0)
      throw new UsageError(
        `'${args[0]}' needs a subcommand: ${groups.map((g) => g.path.slice(1).join(' ')).join(', ')}`,
      );
    const near = closest(args[0]!, [...new Set(COMMANDS.map((c) => c.path[0]!))]);
    throw new UsageError(`unknown command '${args[0]}'${near ? ` (did you mean '${near}'?)` : ''}`, {
      hint: "run 'credprov --help' for the list of commands",
    });
  }
  const { command } = await found.entry.load();
  if (found.rest.includes('--help') || found.rest.includes('-h')) {
    if (ctx.json) printJson(ctx, { command: command.path.join(' '), summary: command.summary, usage: command.usage });
    else ctx.stdout(`${command.usage.trimEnd()}\n`);
    return EXIT_CODES.ok;
  }
  return await command.run(found.rest, ctx);
}

/** The error in words on stderr (see printError); returns the exit code it ends the command with. */
export function reportError(e: unknown, verbose: boolean, write: (s: string) => void): number {
  printError(e, verbose, write);
  return e instanceof CredprovError ? e.exitCode : EXIT_CODES.harness;
}
