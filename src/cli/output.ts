// What stdout carries under --json: exactly one JSON document, the command's
// result or, when it could not produce one, the error, so a script can always
// JSON.parse stdout and read .error or the exit code. Errors also go to
// stderr in words, for the person reading the CI log.
import { join } from 'node:path';
import { ConfigError, CredprovError, errorMessage, type FieldProblem } from '../core/errors.ts';
import type { Matrix } from '../report/matrix.ts';
import type { CheckResult, Summary } from '../report/model.ts';
import type { CommandContext } from './command.ts';

export function printJson(ctx: Pick<CommandContext, 'stdout'>, value: unknown): void {
  ctx.stdout(`${JSON.stringify(value)}\n`);
}

/** An error as a person reads it: `error: <reason>`, the detail indented, the hint; the stack only with --verbose. */
export function printError(e: unknown, verbose: boolean, write: (s: string) => void): void {
  if (e instanceof CredprovError) {
    write(`error: ${withoutErrorPrefix(e.reason)}\n`);
    if (e.detail) write(`${e.detail.replace(/^/gm, '  ')}\n`);
    if (e.hint) write(`  hint: ${e.hint}\n`);
    if (verbose && e.stack) write(`${e.stack}\n`);
    return;
  }
  write(`error: ${withoutErrorPrefix(errorMessage(e))}\n`);
  if (verbose && e instanceof Error && e.stack) write(`${e.stack}\n`);
  else write('  (an unexpected harness error; rerun with --verbose for the stack)\n');
}

/** One `error:` prefix: a reason that already starts with one (a quoted tool's "error: …", Node's "Error: …") keeps its text only. */
function withoutErrorPrefix(reason: string): string {
  return reason.replace(/^(error|Error|ERROR):\s*/, '');
}

/** The --json form of an error: `error` is the same one line stderr starts with. */
export interface ErrorJson {
  error: string;
  exitCode: number;
  detail?: string;
  hint?: string;
  file?: string;
  problems?: FieldProblem[];
}

export function errorJson(e: unknown, exitCode: number): ErrorJson {
  const out: ErrorJson = { error: withoutErrorPrefix(errorMessage(e)), exitCode };
  if (e instanceof CredprovError) {
    if (e.detail !== undefined) out.detail = e.detail;
    if (e.hint !== undefined) out.hint = e.hint;
  }
  if (e instanceof ConfigError) {
    if (e.file !== undefined) out.file = e.file;
    if (e.problems.length > 0) out.problems = e.problems;
  }
  return out;
}

/** The --json result of a command that wrote a report (certify, run): where it is and what it says. */
export interface ReportJson {
  reportDir: string;
  report: string;
  summary: Summary;
  /** Ids of the failed checks, MUST and SHOULD (the exit code says whether one blocks). */
  failed: string[];
  exitCode: number;
}

export function reportJson(dir: string, checks: CheckResult[], summary: Summary, exitCode: number): ReportJson {
  return {
    reportDir: dir,
    report: join(dir, 'report.json'),
    summary,
    failed: checks.filter((c) => c.status === 'failed').map((c) => c.id),
    exitCode,
  };
}

/** For onInterrupt: under --json, the interrupted command's error document, since its own return never comes. */
export function announceInterrupt(
  ctx: Pick<CommandContext, 'stdout' | 'json'>,
): (exitCode: number, signal: NodeJS.Signals) => void {
  return (exitCode, signal) => {
    if (ctx.json) printJson(ctx, { error: `interrupted by ${signal}; cleaned up`, exitCode } satisfies ErrorJson);
  };
}

/** qualify and report merge: the suite × version matrix, one row per suite, on stderr. */
export function writeMatrixSummary(matrix: Matrix, write: (s: string) => void = (s) => process.stderr.write(s)): void {
  write(`\n${'suite'.padEnd(24)} ${matrix.versions.map((v) => v.padEnd(10)).join(' ')}\n`);
  for (const r of matrix.rows)
    write(`${r.suite.padEnd(24)} ${matrix.versions.map((v) => (r.cells[v]?.status ?? '-').padEnd(10)).join(' ')}\n`);
}
