// Progress of long steps (cluster up, binary builds), on stderr: one line per
// step with its duration, so CI logs show where time went.
import { formatMs } from './duration.ts';

export interface Progress {
  /** Starts a named step; call the returned function with the outcome. */
  start(name: string): (ok: boolean, note?: string) => void;
  note(message: string): void;
}

export const silentProgress: Progress = {
  start: () => () => {},
  note: () => {},
};

export function stderrProgress(
  write = (s: string) => process.stderr.write(s),
  now = () => performance.now(),
): Progress {
  return {
    start(name) {
      const t0 = now();
      write(` • ${name} …\n`);
      let ended = false;
      return (ok, note) => {
        if (ended) return;
        ended = true;
        write(` ${ok ? '✓' : '✗'} ${name} (${formatMs(now() - t0)})${note ? `: ${note}` : ''}\n`);
      };
    },
    note(message) {
      write(`   ${message}\n`);
    },
  };
}

/** Runs `fn` as a named step: progress start/end, and the outcome follows the promise. */
export async function step<T>(progress: Progress, name: string, fn: () => Promise<T>): Promise<T> {
  const end = progress.start(name);
  try {
    const value = await fn();
    end(true);
    return value;
  } catch (err) {
    end(false);
    throw err;
  }
}
