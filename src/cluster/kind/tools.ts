// The two CLIs the kind provider drives. One small runner interface so tests
// script answers without Docker; every failure keeps argv and output. `kind`
// is the one on PATH, else credprov's own build (binaries ensure --for kind).
import { execa } from 'execa';
import { CommandError } from '../../core/errors.ts';
import { type Logger, noopLogger } from '../../core/logger.ts';
import { locateKind } from './builds/kind-cli.ts';

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The binary was not found. */
  missing?: boolean;
}

export type Runner = (cmd: string, args: string[], opts?: { input?: string; timeoutMs?: number }) => Promise<RunResult>;

/** `env`: variables every command gets on top of this process's (the kind engine's DOCKER_HOST). */
export function execaRunner(
  log: Logger = noopLogger,
  locate = () => locateKind(),
  env: () => Record<string, string> = () => ({}),
): Runner {
  return async (cmd, args, opts = {}) => {
    log.debug(`${cmd} ${args.join(' ')}`);
    // Looked up on every call: a build made by this process (or another) since is found.
    const bin = cmd === 'kind' ? ((await locate())?.path ?? cmd) : cmd;
    try {
      const r = await execa(bin, args, {
        reject: false,
        env: env(),
        timeout: opts.timeoutMs ?? 600_000,
        ...(opts.input !== undefined ? { input: opts.input } : {}),
      });
      if ((r as { code?: string }).code === 'ENOENT')
        return { exitCode: 127, stdout: '', stderr: `${cmd}: not found`, missing: true };
      return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout), stderr: String(r.stderr) };
    } catch (err) {
      if ((err as { code?: string }).code === 'ENOENT')
        return { exitCode: 127, stdout: '', stderr: `${cmd}: not found`, missing: true };
      throw err;
    }
  };
}

/** Runs and throws a CommandError ("failed to <what>") on a non-zero exit. */
export async function must(
  run: Runner,
  what: string,
  cmd: string,
  args: string[],
  opts?: { input?: string; timeoutMs?: number },
): Promise<string> {
  const r = await run(cmd, args, opts);
  if (r.exitCode !== 0) {
    throw new CommandError(`failed to ${what} (${cmd} exit ${r.exitCode})`, {
      argv: [cmd, ...args],
      exitCode: r.exitCode,
      output: `${r.stdout}\n${r.stderr}`,
    });
  }
  return r.stdout;
}
