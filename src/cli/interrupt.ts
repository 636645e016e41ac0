// Ctrl-C during a long command (a build, a download, a certification) aborts
// it through an AbortSignal, so the command's own finally blocks remove
// staging dirs and locks before the process exits. The command then ends with
// the interrupted exit code (130 for SIGINT, 143 for SIGTERM), whatever the
// aborted work threw or returned. A second Ctrl-C exits at once.
import { CredprovError, type ErrorParts } from '../core/errors.ts';
import { interruptExitCode } from './signals.ts';

export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (received) process.exit(interruptExitCode(sig));
    received = sig;
    process.stderr.write(`\n${sig}: stopping and cleaning up (again to exit at once)\n`);
    controller.abort(new Error(`interrupted by ${sig}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await fn(controller.signal);
    if (received) throw interrupted(undefined, received);
    return result;
  } catch (err) {
    throw received ? interrupted(err, received) : err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The error an interrupted command ends with: the aborted work's own reason when it gave one. */
function interrupted(err: unknown, signal: NodeJS.Signals): CredprovError {
  const exitCode = interruptExitCode(signal);
  if (err instanceof CredprovError) {
    if (err.exitCode === exitCode) return err;
    const parts: ErrorParts = { cause: err, exitCode };
    if (err.detail !== undefined) parts.detail = err.detail;
    if (err.hint !== undefined) parts.hint = err.hint;
    return new CredprovError(err.reason, parts);
  }
  return new CredprovError(`interrupted by ${signal}; stopped and cleaned up`, {
    exitCode,
    ...(err === undefined ? {} : { cause: err }),
  });
}
