// The per-version cache: <cacheDir>/kube/v1.37.1/{kubelet,kube-apiserver,kube-controller-manager,
// kube-scheduler,kubectl,manifest.json}; a skew entry may hold the kubelet alone.
// A version directory appears only by rename of a complete staging directory,
// so an interrupted build or download never leaves a half cache behind. A lock
// file per version keeps two credprov processes from building the same thing.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, link, mkdir, open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cacheDir as defaultCacheDir } from '../../core/paths.ts';
import { TimeoutError } from '../../core/errors.ts';
import { pidExists } from '../../core/pids.ts';
import { sleep } from '../../core/time.ts';

export const KUBE_BINARIES = [
  'kubelet',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubectl',
] as const;
/**
 * Fetched only when named (--only kubeadm, ensureKubeadm): kind's node image
 * needs kubeadm, the local provider does not, so the default set stays as fast.
 */
export const OPTIONAL_KUBE_BINARIES = ['kubeadm'] as const;
export const ALL_KUBE_BINARIES = [...KUBE_BINARIES, ...OPTIONAL_KUBE_BINARIES] as const;
export type KubeBinaryName = (typeof ALL_KUBE_BINARIES)[number];
export type KubeSource = 'dir' | 'download' | 'build';

export interface BinaryRecord {
  sha256: string;
  size: number;
}

export interface KubeManifest {
  version: string;
  source: KubeSource;
  /** Where it came from: a download URL base, or the module and its go.sum hash. */
  origin: string;
  binaries: Record<string, BinaryRecord>;
  createdAt: string;
  /** Wall time of the download or build that filled this entry. */
  durationMs: number;
  goVersion?: string;
  ldflags?: string;
  /** Binaries added to the entry later (kubeadm into a set built without it), each with its own provenance. */
  additions?: Addition[];
  /**
   * Staging modules built at another version than the release's own, because the proxy refuses
   * that one (a pre-release only): module → the version used. The build is then not the exact
   * upstream source, and every listing says so.
   */
  substitutes?: Record<string, string>;
}

export type Addition = Omit<KubeManifest, 'version' | 'binaries' | 'additions'> & { names: string[] };

export function kubeCacheRoot(cacheDir = defaultCacheDir()): string {
  return join(cacheDir, 'kube');
}

export function versionDir(root: string, version: string): string {
  return join(root, version);
}

export async function readManifest(dir: string): Promise<KubeManifest | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as KubeManifest;
  } catch {
    return undefined;
  }
}

/**
 * A cache entry is usable when its manifest is there and every binary has the
 * recorded size and is executable. Hashes are checked by `verifyEntry`, which
 * reads ~300 MB and is too slow for every lookup.
 */
export async function usableEntry(
  dir: string,
  names: readonly string[] = KUBE_BINARIES,
): Promise<KubeManifest | undefined> {
  const manifest = await readManifest(dir);
  if (!manifest) return undefined;
  for (const name of names) {
    const rec = manifest.binaries[name];
    if (!rec) return undefined;
    try {
      const st = await stat(join(dir, name));
      if (st.size !== rec.size || (st.mode & 0o111) === 0) return undefined;
    } catch {
      return undefined;
    }
  }
  return manifest;
}

/** The entry as it is, whatever it holds (a skew entry holds the kubelet alone), or undefined. */
export async function existingEntry(dir: string): Promise<KubeManifest | undefined> {
  const manifest = await readManifest(dir);
  return manifest && usableEntry(dir, Object.keys(manifest.binaries));
}

/**
 * Completes an entry instead of replacing it: hard-links the binaries of
 * `existing` that `fresh` lacks into the staging dir (same filesystem) and
 * returns the manifest of the union, the newcomers recorded as an addition.
 */
export async function carryOver(
  existingDir: string,
  existing: KubeManifest,
  staging: string,
  fresh: KubeManifest,
): Promise<KubeManifest> {
  const kept = Object.keys(existing.binaries).filter((n) => !fresh.binaries[n]);
  for (const n of kept) await link(join(existingDir, n), join(staging, n));
  // The entry's build.log tells how all of it was made: the earlier part first.
  const earlier = await readFile(join(existingDir, 'build.log'), 'utf8').catch(() => '');
  if (earlier) {
    const now = await readFile(join(staging, 'build.log'), 'utf8').catch(() => '');
    await writeFile(join(staging, 'build.log'), `${earlier}${now}`);
  }
  const { version: _v, binaries, additions: _a, ...provenance } = fresh;
  return {
    ...existing,
    binaries: { ...existing.binaries, ...binaries },
    additions: [...(existing.additions ?? []), { names: Object.keys(binaries), ...provenance }],
  };
}

/** Names of the binaries whose content no longer matches the manifest. */
export async function verifyEntry(dir: string, manifest: KubeManifest): Promise<string[]> {
  const bad: string[] = [];
  for (const [name, rec] of Object.entries(manifest.binaries)) {
    const sum = await sha256File(join(dir, name)).catch(() => '');
    if (sum !== rec.sha256) bad.push(name);
  }
  return bad;
}

/** Complete entries under `root` (kube by default; containerd passes its own binary names). */
export async function listEntries(root: string, binaries: readonly string[] = KUBE_BINARIES): Promise<KubeManifest[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const out: KubeManifest[] = [];
  // Releases and pre-releases (v1.38.0-alpha.0); lock files, staging dirs and unbuildable.json are not entries.
  for (const n of names.filter((x) => /^v\d+\.\d+\.\d+(?:-(?:alpha|beta|rc)\.\d+)?$/.test(x))) {
    const m = await usableEntry(join(root, n), binaries);
    if (m) out.push(m);
  }
  return out;
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function describeBinaries(dir: string, names: readonly string[]): Promise<Record<string, BinaryRecord>> {
  const out: Record<string, BinaryRecord> = {};
  for (const name of names) {
    const path = join(dir, name);
    out[name] = { sha256: await sha256File(path), size: (await stat(path)).size };
  }
  return out;
}

/** A fresh staging dir beside the final one (same filesystem, so the rename is atomic). */
export async function stagingDir(root: string, label: string): Promise<string> {
  await mkdir(root, { recursive: true });
  const dir = join(root, `.staging-${label}-${process.pid}-${Date.now().toString(36)}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/**
 * Moves a complete staging dir into place with its manifest written last. If
 * another process won the race, its entry stays and ours is discarded; an
 * entry holding fewer binaries (a skew build of the kubelet alone) is
 * replaced by ours. Callers hold the version's lock.
 */
export async function commitEntry(staging: string, finalDir: string, manifest: KubeManifest): Promise<void> {
  await writeFile(join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  try {
    await rename(staging, finalDir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
    const existing = await readManifest(finalDir);
    if (existing && Object.keys(manifest.binaries).every((n) => existing.binaries[n])) {
      await rm(staging, { recursive: true, force: true });
      return;
    }
    const aside = `${finalDir}.old-${process.pid}`;
    await rename(finalDir, aside);
    await rename(staging, finalDir);
    await rm(aside, { recursive: true, force: true });
  }
}

/**
 * One cache entry made from scratch: `fill` puts the binaries into a fresh
 * staging dir and returns their manifest, which commitEntry moves into place
 * as `finalDir`. A fill that throws leaves nothing behind (read-only files
 * copied out of the Go module cache included). Callers hold the version's lock.
 */
export async function buildEntry(
  root: string,
  label: string,
  finalDir: string,
  fill: (staging: string, startedAt: number) => Promise<KubeManifest>,
): Promise<void> {
  const staging = await stagingDir(root, label);
  let committed = false;
  try {
    await commitEntry(staging, finalDir, await fill(staging, Date.now()));
    committed = true;
  } finally {
    if (!committed) {
      await makeWritable(staging).catch(() => {});
      await rm(staging, { recursive: true, force: true });
    }
  }
}

/** chmod -R u+w, so a tree copied from the read-only Go module cache can be changed or removed. */
export async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await makeWritable(p);
    else if (e.isFile()) await chmod(p, 0o644);
  }
}

/** Leftovers of interrupted runs whose process is gone. */
export async function removeStaleStaging(root: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return;
  }
  for (const n of names) {
    const m = /^\.staging-.*-(\d+)-[0-9a-z]+$/.exec(n);
    if (m && !pidExists(Number(m[1]))) await rm(join(root, n), { recursive: true, force: true });
  }
}

/**
 * An exclusive lock on one cache entry. A lock whose holder died is taken over.
 * Waits up to `timeoutMs` (a cold build takes minutes, so callers pass a long one).
 */
export async function withLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  opts: { timeoutMs?: number; onWait?: (holder: number) => void; pollMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60 * 60_000);
  let told = false;
  await mkdir(dirname(lockPath), { recursive: true });
  for (;;) {
    try {
      const fh = await open(lockPath, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
      // An empty lock is one being written right now, unless it is old.
      const fresh =
        !holder &&
        Date.now() -
          (await stat(lockPath).then(
            (s) => s.mtimeMs,
            () => 0,
          )) <
          5000;
      if (!fresh && (!holder || !pidExists(holder))) {
        await rm(lockPath, { force: true });
        continue;
      }
      if (!told && holder) {
        opts.onWait?.(holder);
        told = true;
      }
      if (Date.now() > deadline)
        throw new TimeoutError(`another credprov (pid ${holder}) has held ${lockPath} for too long`, {
          hint: `if no credprov runs, remove ${lockPath}`,
        });
      await sleep(opts.pollMs ?? 1000);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}
