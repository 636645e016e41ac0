// One error family for the whole harness. `reason` is a single actionable line;
// `detail` holds the multi-line part (command output tail, offending YAML);
// `hint` says what to do. The CLI prints them in that order and the stack only
// with --verbose.

export interface ErrorParts {
  detail?: string;
  hint?: string;
  cause?: unknown;
  /** Overrides the class's exit code (used when wrapping keeps the original's). */
  exitCode?: number;
}

export class CredprovError extends Error {
  readonly reason: string;
  readonly detail?: string;
  readonly hint?: string;
  /** Process exit code the CLI uses when this error ends a command. */
  readonly exitCode: number;
  static readonly defaultExitCode: number = 3;

  constructor(reason: string, parts: ErrorParts = {}) {
    super(reason, parts.cause === undefined ? undefined : { cause: parts.cause });
    this.name = new.target.name;
    this.reason = reason;
    this.exitCode = parts.exitCode ?? (new.target as typeof CredprovError).defaultExitCode;
    if (parts.detail !== undefined) this.detail = parts.detail;
    if (parts.hint !== undefined) this.hint = parts.hint;
  }
}

/** Bad command line: unknown flag, missing argument. Exit code 2. */
export class UsageError extends CredprovError {
  static override readonly defaultExitCode = 2;
}

/** A field path inside an input, in the kubelet's notation (providers[0].name). */
export interface FieldProblem {
  field: string;
  message: string;
}

/** Bad input file or value: names the file, the field and what was expected. Exit code 2. */
export class ConfigError extends CredprovError {
  static override readonly defaultExitCode = 2;
  readonly file?: string;
  readonly problems: FieldProblem[];

  constructor(reason: string, opts: { file?: string; problems?: FieldProblem[] } & ErrorParts = {}) {
    const problems = opts.problems ?? [];
    const detail =
      opts.detail ?? (problems.length > 0 ? problems.map((p) => `${p.field}: ${p.message}`).join('\n') : undefined);
    super(reason, { ...opts, ...(detail === undefined ? {} : { detail }) });
    if (opts.file !== undefined) this.file = opts.file;
    this.problems = problems;
  }
}

/**
 * A file the user named that cannot be read as input at all: missing, not a
 * regular file, too large, a YAML alias bomb. Exit code 2, also in commands
 * where other ConfigErrors are a verdict (validate-config exits 1 for those).
 */
export class InputFileError extends ConfigError {}

/** Something the machine lacks (binary, capability, privilege). Exit code 3 unless used as input error. */
export class PrerequisiteError extends CredprovError {}

/** An external command failed; keeps argv and an output tail. */
export class CommandError extends CredprovError {
  readonly argv: string[];
  readonly exitCodeOfCommand?: number;

  constructor(reason: string, opts: { argv: string[]; exitCode?: number; output?: string } & ErrorParts) {
    super(reason, { ...opts, ...(opts.output ? { detail: tail(opts.output, 40) } : {}) });
    this.argv = opts.argv;
    if (opts.exitCode !== undefined) this.exitCodeOfCommand = opts.exitCode;
  }
}

/** Something awaited did not happen in time; says what and for how long. */
export class TimeoutError extends CredprovError {}

/** Adds context at a module boundary: "starting kubelet: <reason>". */
export function wrap(err: unknown, context: string): CredprovError {
  if (err instanceof CredprovError) {
    const parts: ErrorParts = { cause: err, exitCode: err.exitCode };
    if (err.detail !== undefined) parts.detail = err.detail;
    if (err.hint !== undefined) parts.hint = err.hint;
    return new CredprovError(`${context}: ${err.reason}`, parts);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new CredprovError(`${context}: ${message}`, { cause: err });
}

export function tail(text: string, lines: number): string {
  const all = text.trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}

export function errorMessage(err: unknown): string {
  if (err instanceof CredprovError) return err.reason;
  if (err instanceof Error) return err.message;
  return String(err);
}
