// A window on a log that only grows (a plugin's invocations, a fake cloud's
// requests, a wrapper's runs): read once now, and later what it gained since.
// What a case observes while it acts, without counting "before" by hand.

export interface Window<T> {
  /** The entries added since the window opened, in the log's order. */
  added(): Promise<T[]>;
}

/** Opens a window on `read` (which returns the whole log, oldest first). */
export async function since<T>(read: () => Promise<readonly T[]> | readonly T[]): Promise<Window<T>> {
  const before = (await read()).length;
  return { added: async () => (await read()).slice(before) };
}
