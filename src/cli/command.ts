// The shape of a CLI command: help text plus a run function returning the exit code.
import type { Logger } from '../core/logger.ts';

export interface CommandContext {
  log: Logger;
  verbose: boolean;
  /** --json: stdout carries exactly one JSON document, the result (or main() prints the error). */
  json: boolean;
  /** Where machine-readable output goes (JSON last lines, true/false). */
  stdout: (s: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface Command {
  /** Words that select it: ['certify', 'kubelet-plugin']. */
  path: string[];
  summary: string;
  usage: string;
  run(argv: string[], ctx: CommandContext): Promise<number>;
}
