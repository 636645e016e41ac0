// A window on a log that only grows (a plugin's invocations, a fake cloud's
// requests, a wrapper's runs, a component's log file): read once now, and
// later what it gained since. What a case observes while it acts, without
// counting "before" by hand.
import { open, stat } from 'node:fs/promises';

export interface Window<T> {
  /** The entries added since the window opened, in the log's order. */
  added(): Promise<T[]>;
}

/** Opens a window on `read` (which returns the whole log, oldest first). */
export async function since<T>(read: () => Promise<readonly T[]> | readonly T[]): Promise<Window<T>> {
  const before = (await read()).length;
  return { added: async () => (await read()).slice(before) };
}

/** Opens a window on a log file (which may not exist yet): later, the lines appended since. */
export async function linesSince(file: string): Promise<Window<string>> {
  const offset = (await stat(file).catch(() => ({ size: 0 }))).size;
  return {
    async added() {
      const fh = await open(file, 'r').catch(() => undefined);
      if (!fh) return [];
      try {
        const { size } = await fh.stat();
        if (size <= offset) return [];
        const buf = Buffer.alloc(size - offset);
        await fh.read(buf, 0, buf.length, offset);
        return buf.toString('utf8').split('\n').filter(Boolean);
      } finally {
        await fh.close();
      }
    },
  };
}
