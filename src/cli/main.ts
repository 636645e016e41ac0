// credprov's entry: pick the command, run it, turn errors into one line.
import { interruptInProgress } from './signals.ts';
import { CredprovError, errorMessage } from '../core/errors.ts';
import { stderrLogger } from '../core/logger.ts';
import { closest } from './flags.ts';
import { COMMANDS, type CommandEntry } from './commands.ts';
import type { CommandContext } from './command.ts';

const VERSION = '0.1.0';

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
    'Global flags: --verbose (debug logs, stacks on error), --version, --help',
    'Exit codes: 0 all MUST checks passed, 1 a MUST check failed, 2 usage or input error, 3 harness error',
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

export async function main(argv: string[], ctxOverrides: Partial<CommandContext> = {}): Promise<number> {
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  const args = argv.filter((a) => a !== '--verbose' && a !== '-v');
  const ctx: CommandContext = {
    log: stderrLogger(verbose ? 'debug' : 'info'),
    verbose,
    stdout: (s) => process.stdout.write(s),
    env: process.env,
    cwd: process.cwd(),
    ...ctxOverrides,
  };
  const err = (s: string) => process.stderr.write(s);

  if (args.length === 0 || args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    ctx.stdout(helpText());
    return args.length === 0 ? 2 : 0;
  }
  if (args[0] === '--version') {
    ctx.stdout(`credprov ${VERSION}\n`);
    return 0;
  }
  const found = findCommand(args);
  if (!found) {
    const groups = COMMANDS.filter((c) => c.path[0] === args[0] && c.path.length > 1);
    if (groups.length > 0) {
      err(`error: '${args[0]}' needs a subcommand: ${groups.map((g) => g.path.slice(1).join(' ')).join(', ')}\n`);
    } else {
      const near = closest(args[0]!, [...new Set(COMMANDS.map((c) => c.path[0]!))]);
      err(`error: unknown command '${args[0]}'${near ? ` (did you mean '${near}'?)` : ''}\n  hint: run 'credprov --help' for the list of commands\n`);
    }
    return 2;
  }
  try {
    const { command } = await found.entry.load();
    if (found.rest.includes('--help') || found.rest.includes('-h')) {
      ctx.stdout(`${command.usage.trimEnd()}\n`);
      return 0;
    }
    return await command.run(found.rest, ctx);
  } catch (e) {
    // Ctrl-C made the command fail (an up stopped between steps): the interrupt handler is cleaning up and exits 130.
    if (interruptInProgress()) return 130;
    return reportError(e, verbose, err);
  }
}

export function reportError(e: unknown, verbose: boolean, write: (s: string) => void): number {
  if (e instanceof CredprovError) {
    write(`error: ${e.reason}\n`);
    if (e.detail) write(`${e.detail.replace(/^/gm, '  ')}\n`);
    if (e.hint) write(`  hint: ${e.hint}\n`);
    if (verbose && e.stack) write(`${e.stack}\n`);
    return e.exitCode;
  }
  write(`error: ${errorMessage(e)}\n`);
  if (verbose && e instanceof Error && e.stack) write(`${e.stack}\n`);
  else write('  (an unexpected harness error; rerun with --verbose for the stack)\n');
  return 3;
}
