// A failed `up` keeps its component logs under failed-runs/; only the newest
// few are kept so the state dir does not grow without bound.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const KEPT_FAILED_RUNS = 10;

/** Removes all but the `keep` most recently modified directories in `dir`. */
export async function pruneOldest(dir: string, keep: number): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  const byAge = await Promise.all(
    entries
      .filter((e) => e.isDirectory())
      .map(async (e) => ({ path: join(dir, e.name), mtime: (await stat(join(dir, e.name))).mtimeMs })),
  );
  byAge.sort((a, b) => b.mtime - a.mtime);
  await Promise.all(byAge.slice(keep).map((e) => rm(e.path, { recursive: true, force: true })));
}
