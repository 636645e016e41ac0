// The cache entry of a compiled client probe (kube-rs, fabric8): built once
// per client version and probe source into <cacheDir>/clients/<probe>/<key>/
// with a manifest, committed by rename of a complete staging dir under a lock
// (binaries/cache.ts buildEntry), as the client-go probe and the vendor
// plugins are. The key names the client version and a hash of the probe's
// sources, so a changed probe is rebuilt and an old entry never answers for it.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildEntry, removeStaleStaging, usableEntry, withLock, type KubeManifest } from '../cluster/binaries/cache.ts';
import { silentProgress, type Progress } from '../core/progress.ts';

export interface ProbeEntry {
  dir: string;
  manifest: KubeManifest;
  fromCache: boolean;
}

export interface ProbeEntrySpec {
  /** <cacheDir>/clients/<probe>. */
  root: string;
  /** <client version>-<hash of the sources>. */
  key: string;
  /** Files the entry must hold (their sha256 is in the manifest). */
  files: string[];
  /** What is being built, for the wait message: "the kube-rs probe". */
  what: string;
  progress?: Progress;
  /** Never build: undefined when it is not cached. */
  cachedOnly?: boolean;
  /** Builds into `staging` and returns the manifest. */
  fill(staging: string, startedAt: number): Promise<KubeManifest>;
}

/** `<version>-<first 12 hex of sha256 over the files>`: the probe's cache key. */
export async function probeKey(version: string, sources: readonly string[]): Promise<string> {
  const h = createHash('sha256');
  for (const f of sources) h.update(await readFile(f)).update('\0');
  return `${version}-${h.digest('hex').slice(0, 12)}`;
}

export async function ensureProbeEntry(spec: ProbeEntrySpec): Promise<ProbeEntry | undefined> {
  const dir = join(spec.root, spec.key);
  const cached = async (fromCache: boolean): Promise<ProbeEntry | undefined> => {
    const manifest = await usableEntry(dir, spec.files);
    return manifest ? { dir, manifest, fromCache } : undefined;
  };
  const hit = await cached(true);
  if (hit || spec.cachedOnly) return hit;
  await removeStaleStaging(spec.root);
  const progress = spec.progress ?? silentProgress;
  return withLock(
    join(spec.root, `${spec.key}.lock`),
    async () => {
      const again = await cached(true);
      if (again) return again;
      await buildEntry(spec.root, spec.key, dir, spec.fill);
      return (await cached(false))!;
    },
    { onWait: (pid) => progress.note(`waiting for another credprov (pid ${pid}) that is building ${spec.what}`) },
  );
}
