// Ctrl-C / SIGTERM during a long command: run the registered cleanup once
// (tear the environment down), then exit with the conventional 128+signal.
let interrupting = false;

/** A cleanup after Ctrl-C is running: the command's own failure meanwhile is its consequence, not news. */
export function interruptInProgress(): boolean {
  return interrupting;
}

export function onInterrupt(cleanup: () => Promise<void>, write: (s: string) => void = (s) => process.stderr.write(s)): () => void {
  let running = false;
  const handler = (signal: NodeJS.Signals) => {
    if (running) {
      write(`\n${signal} again: exiting without finishing cleanup\n`);
      process.exit(130);
    }
    running = true;
    interrupting = true;
    write(`\n${signal}: cleaning up (press Ctrl-C again to abort) …\n`);
    cleanup()
      .catch((err: unknown) => write(`cleanup failed: ${(err as Error).message}\n`))
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
