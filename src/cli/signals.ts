// Ctrl-C / SIGTERM during a long command: run the registered cleanup once
// (tear the environment down), then exit with the conventional 128+signal:
// 130 for SIGINT, 143 for SIGTERM.
let interrupting = false;

/** A cleanup after Ctrl-C is running: the command's own failure meanwhile is its consequence, not news. */
export function interruptInProgress(): boolean {
  return interrupting;
}

export function interruptExitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGTERM' ? 143 : 130;
}

/**
 * `announce` runs just before the process exits, e.g. to print the --json
 * error document, since the command's own return never comes.
 */
export function onInterrupt(
  cleanup: () => Promise<void>,
  write: (s: string) => void = (s) => process.stderr.write(s),
  announce: (exitCode: number, signal: NodeJS.Signals) => void = () => {},
): () => void {
  let running = false;
  const exit = (signal: NodeJS.Signals, code: number) => {
    announce(code, signal);
    process.exit(code);
  };
  const handler = (signal: NodeJS.Signals) => {
    if (running) {
      write(`\n${signal} again: exiting without finishing cleanup\n`);
      exit(signal, 130);
    }
    running = true;
    interrupting = true;
    write(`\n${signal}: cleaning up (press Ctrl-C again to abort) …\n`);
    cleanup()
      .catch((err: unknown) => write(`cleanup failed: ${(err as Error).message}\n`))
      .finally(() => exit(signal, interruptExitCode(signal)));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/**
 * A run cut short by a dying component leaves its suite running on in the
 * background, waiting on its own timers: once the command has returned (its
 * reports written, its exit code set), end the process within a second
 * rather than after those timers.
 */
export function exitSoonAfterReturn(): void {
  setTimeout(() => process.exit(), 1000).unref();
}
