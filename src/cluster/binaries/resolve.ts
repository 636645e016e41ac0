// resolveKubeBinaries: kubelet, kube-apiserver and kubectl of an exact
// Kubernetes release, from (in order) a directory the user names, the cache,
// the official release download, or a build from the Go module proxy. New
// entries are cached per version outside the repo; a cached version resolves
// without touching the network.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, CredprovError, PrerequisiteError } from '../../core/errors.ts';
import { type Logger, noopLogger } from '../../core/logger.ts';
import { type Progress, silentProgress } from '../../core/progress.ts';
import { cacheDir as defaultCacheDir } from '../../core/paths.ts';
import { parseKubeVersion, type KubeVersion } from '../../versions/table.ts';
import {
  ALL_KUBE_BINARIES,
  buildEntry,
  carryOver,
  commitEntry,
  existingEntry,
  KUBE_BINARIES,
  kubeCacheRoot,
  type KubeBinaryName,
  listEntries,
  removeStaleStaging,
  stagingDir,
  usableEntry,
  versionDir,
  withLock,
  type KubeManifest,
  type KubeSource,
} from './cache.ts';
import { systemGo, type GoTool } from './go.ts';
import { KUBE_MODULE } from './gomod.ts';
import { reportedVersion } from './probe.ts';
import { buildKubeBinaries, NotBuildableError } from './source-build.ts';
import { DEFAULT_DOWNLOAD_BASE_URL, downloadKubeBinaries } from './source-download.ts';
import {
  candidateVersions,
  compareVersions,
  DEFAULT_KUBE_VERSION,
  isPreRelease,
  patchesOf,
  preReleasesOf,
} from './versions.ts';

export interface ResolveOptions {
  /** 1.37.1, v1.37, 1.37.x; default DEFAULT_KUBE_VERSION. */
  version?: string;
  /**
   * Which binaries are needed; default all of KUBE_BINARIES. An older minor for version skew needs only its
   * kubelet; kubeadm (kind's node image) only comes when named. An entry lacking some gets just those added.
   */
  names?: readonly KubeBinaryName[];
  /** Which sources to try, in this order; default: ['dir'] when `dir` is given, else ['download', 'build']. */
  sources?: KubeSource[];
  dir?: string;
  downloadBaseUrl?: string;
  cacheDir?: string;
  progress?: Progress;
  log?: Logger;
  /** Test seams. */
  go?: GoTool;
  fetchImpl?: typeof fetch;
  connectTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface KubeBinaries {
  /** Exact version, v1.37.1. */
  version: string;
  dir: string;
  kubelet: string;
  kubeApiserver: string;
  kubectl: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  /** Present only when `names` holds it. */
  kubeadm: string;
  /** The binaries this entry holds (a skew entry may hold only the kubelet). */
  names: KubeBinaryName[];
  source: KubeSource;
  /** True when no download or build happened in this call. */
  fromCache: boolean;
  manifest?: KubeManifest;
}

export async function resolveKubeBinaries(opts: ResolveOptions = {}): Promise<KubeBinaries> {
  const spec = parseKubeVersion(opts.version ?? DEFAULT_KUBE_VERSION);
  const sources = opts.sources ?? (opts.dir ? ['dir'] : ['download', 'build']);
  const log = opts.log ?? noopLogger;
  if (sources.includes('dir')) {
    if (!opts.dir) throw new ConfigError('--source dir needs --dir <directory with kubelet, kube-apiserver, kubectl>');
    return fromDir(opts.dir, spec, opts.names ?? KUBE_BINARIES);
  }
  const root = kubeCacheRoot(opts.cacheDir ?? defaultCacheDir());
  const names = opts.names ?? KUBE_BINARIES;
  await removeStaleStaging(root);

  if (spec.patch !== undefined) {
    const hit = await cached(root, spec.text, names);
    if (hit) {
      log.debug(`kube ${spec.text}: cache hit in ${hit.dir}`);
      return hit;
    }
  }
  const go = opts.go ?? systemGo({ log });
  const candidates = await candidateVersions(spec, go).catch((err: unknown) => {
    log.warn(`cannot ask the Go module proxy for ${spec.text} releases: ${(err as Error).message}`);
    return [] as string[];
  });
  if (candidates.length === 0) {
    // Offline with a minor spec: the newest cached patch (or pre-release) is the best answer there is.
    const cachedVersions = (await listEntries(root, names)).map((m) => m.version);
    const releases = patchesOf(cachedVersions, spec.minor);
    const local = releases.length > 0 ? releases : preReleasesOf(cachedVersions, spec.minor);
    if (local.length > 0) return (await cached(root, local[0]!, names))!;
    throw new PrerequisiteError(
      `no release of Kubernetes ${spec.text} is known: the Go module proxy answered nothing and none is cached`,
      {
        hint: 'check network access to the Go module proxy (GOPROXY), or give --dir with prebuilt binaries',
      },
    );
  }
  if (spec.patch === undefined && isPreRelease(candidates[0]!)) {
    const note = `Kubernetes 1.${spec.minor} has no release yet: using its pre-releases, newest first (${candidates.join(', ')})`;
    (opts.progress ?? silentProgress).note(note);
    log.debug(note);
  }
  return fromCandidates(candidates, spec, sources, root, go, { ...opts, names, wanted: names });
}

async function fromCandidates(
  candidates: string[],
  spec: KubeVersion,
  sources: KubeSource[],
  root: string,
  go: GoTool,
  opts: ResolveOptions & { names: readonly KubeBinaryName[]; wanted: readonly KubeBinaryName[] },
): Promise<KubeBinaries> {
  const progress = opts.progress ?? silentProgress;
  const log = opts.log ?? noopLogger;
  let downloadDead = !sources.includes('download');
  const skipped: string[] = [];
  const known = spec.patch === undefined ? await readUnbuildable(root) : {};
  for (const version of candidates) {
    const hit = await cached(root, version, opts.names);
    if (hit) return hit;
    const remembered = known[version];
    if (remembered && Date.now() - Date.parse(remembered.at) < UNBUILDABLE_TTL_MS) {
      log.debug(`${version}: skipped, not buildable (${remembered.failure}) when tried at ${remembered.at}`);
      skipped.push(`${version} (${remembered.failure})`);
      continue;
    }
    const made = await withLock(
      join(root, `${version}.lock`),
      async () => {
        const again = await cached(root, version, opts.names);
        if (again) return again;
        const partial = await existingEntry(versionDir(root, version));
        const names = partial ? opts.names.filter((n) => !partial.binaries[n]) : opts.names;
        if (partial) log.debug(`kube ${version}: adding ${names.join(', ')} to the cached entry`);
        const fill = { ...opts, names, partial };
        if (!downloadDead) {
          const r = await viaDownload(version, root, fill);
          if (r.kind === 'done') return r.result;
          log.debug(r.reason);
          if (r.kind === 'unreachable') downloadDead = true;
        }
        if (!sources.includes('build')) return undefined;
        try {
          return await viaBuild(version, root, go, fill);
        } catch (err) {
          if (err instanceof NotBuildableError && spec.patch === undefined) {
            progress.note(`${version}: ${err.reason.replace(/^.*?: /, '')}; trying an older patch`);
            if (err.failure !== 'network' && err.failure !== 'other')
              await rememberUnbuildable(root, version, err.failure);
            skipped.push(`${version} (${err.failure})`);
            return undefined;
          }
          if (err instanceof NotBuildableError) throw await notBuildable(err, spec, go);
          throw err;
        }
      },
      { onWait: (pid) => progress.note(`waiting for another credprov (pid ${pid}) that is preparing kube ${version}`) },
    );
    if (made) return made;
  }
  throw new PrerequisiteError(`no source could deliver Kubernetes ${spec.text} binaries`, {
    detail: [
      `tried: ${candidates.join(', ')}`,
      ...(skipped.length ? [`not buildable: ${skipped.join(', ')}`] : []),
    ].join('\n'),
    hint: `sources tried: ${sources.join(', ')}; give --dir with prebuilt binaries or --download-base-url with a reachable mirror`,
  });
}

/**
 * Versions the proxy would not deliver (refused zip, no checksum): a minor
 * spec skips them for a day instead of asking again on every resolve.
 */
const UNBUILDABLE_TTL_MS = 24 * 3600_000;
type Unbuildable = Record<string, { failure: string; at: string }>;

async function readUnbuildable(root: string): Promise<Unbuildable> {
  try {
    return JSON.parse(await readFile(join(root, 'unbuildable.json'), 'utf8')) as Unbuildable;
  } catch {
    return {};
  }
}

async function rememberUnbuildable(root: string, version: string, failure: string): Promise<void> {
  const all = { ...(await readUnbuildable(root)), [version]: { failure, at: new Date().toISOString() } };
  const tmp = join(root, `.unbuildable-${process.pid}.json`);
  await writeFile(tmp, `${JSON.stringify(all, null, 2)}\n`);
  await rename(tmp, join(root, 'unbuildable.json'));
}

type FillOptions = ResolveOptions & {
  /** What to fetch: the wanted binaries the cached entry (`partial`) lacks. */
  names: readonly KubeBinaryName[];
  partial?: KubeManifest | undefined;
  /** What the caller asked for, returned from the completed entry. */
  wanted: readonly KubeBinaryName[];
};

/** The fresh manifest, or the union with the partial entry's binaries carried over. */
async function completed(root: string, staging: string, fresh: KubeManifest, o: FillOptions): Promise<KubeManifest> {
  return o.partial ? carryOver(versionDir(root, fresh.version), o.partial, staging, fresh) : fresh;
}

type DownloadStep = { kind: 'done'; result: KubeBinaries } | { kind: 'unreachable' | 'missing'; reason: string };

async function viaDownload(version: string, root: string, opts: FillOptions): Promise<DownloadStep> {
  const base = opts.downloadBaseUrl ?? DEFAULT_DOWNLOAD_BASE_URL;
  const staging = await stagingDir(root, version);
  const t0 = Date.now();
  const end = (opts.progress ?? silentProgress).start(`downloading kube ${version} from ${base}`);
  let committed = false;
  try {
    const r = await downloadKubeBinaries({
      version,
      names: opts.names,
      into: staging,
      baseUrl: base,
      ...(opts.fetchImpl ? { fetchImpl: opts.fetchImpl } : {}),
      ...(opts.connectTimeoutMs ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
      ...(opts.log ? { log: opts.log } : {}),
    });
    if (!r.ok) {
      end(false, r.reason);
      return { kind: r.why, reason: r.reason };
    }
    await checkStamp(staging, version, opts.names);
    const manifest: KubeManifest = {
      version,
      source: 'download',
      origin: base,
      binaries: r.binaries,
      createdAt: new Date().toISOString(),
      durationMs: Date.now() - t0,
    };
    await commitEntry(staging, versionDir(root, version), await completed(root, staging, manifest, opts));
    committed = true;
    end(true);
    return { kind: 'done', result: (await cached(root, version, opts.wanted, false))! };
  } catch (err) {
    end(false);
    throw err;
  } finally {
    if (!committed) await rm(staging, { recursive: true, force: true });
  }
}

async function viaBuild(version: string, root: string, go: GoTool, opts: FillOptions): Promise<KubeBinaries> {
  await buildEntry(root, version, versionDir(root, version), async (staging, t0) => {
    const r = await buildKubeBinaries({
      version,
      names: opts.names,
      into: staging,
      go,
      progress: opts.progress ?? silentProgress,
      ...(opts.log ? { log: opts.log } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    await checkStamp(staging, version, opts.names);
    return completed(
      root,
      staging,
      {
        version,
        source: 'build',
        origin: r.origin,
        binaries: r.binaries,
        createdAt: new Date().toISOString(),
        durationMs: Date.now() - t0,
        goVersion: r.goVersion,
        ldflags: r.ldflags,
        ...(r.substitutes ? { substitutes: r.substitutes } : {}),
      },
      opts,
    );
  });
  return (await cached(root, version, opts.wanted, false))!;
}

/** A binary that reports another version would make every version-based check lie; refuse to cache it. */
async function checkStamp(dir: string, version: string, names: readonly KubeBinaryName[]): Promise<void> {
  // One binary stands for the set (they share the ldflags); the kubelet when it is in it.
  const name = names.includes('kubelet') ? 'kubelet' : names[0]!;
  const reported = await reportedVersion(join(dir, name), name);
  if (reported !== version)
    throw new CredprovError(`the ${name} built or downloaded for ${version} reports ${reported}`, {
      hint: 'nothing was cached',
    });
}

async function cached(
  root: string,
  version: string,
  names: readonly KubeBinaryName[],
  fromCache = true,
): Promise<KubeBinaries | undefined> {
  const dir = versionDir(root, version);
  const manifest = await usableEntry(dir, names);
  if (!manifest) return undefined;
  return {
    version,
    dir,
    ...binaryPaths(dir),
    names: ALL_KUBE_BINARIES.filter((n) => manifest.binaries[n]),
    source: manifest.source,
    fromCache,
    manifest,
  };
}

function binaryPaths(dir: string) {
  return {
    kubelet: join(dir, 'kubelet'),
    kubeApiserver: join(dir, 'kube-apiserver'),
    kubectl: join(dir, 'kubectl'),
    kubeControllerManager: join(dir, 'kube-controller-manager'),
    kubeScheduler: join(dir, 'kube-scheduler'),
    kubeadm: join(dir, 'kubeadm'),
  };
}

async function fromDir(dir: string, spec: KubeVersion, names: readonly KubeBinaryName[]): Promise<KubeBinaries> {
  const paths = binaryPaths(dir);
  let version: string | undefined;
  for (const name of names) {
    let reported: string;
    try {
      reported = await reportedVersion(join(dir, name), name);
    } catch (err) {
      throw new ConfigError(`--dir ${dir}: ${name} is missing or does not run`, {
        detail: (err as CredprovError).detail ?? (err as Error).message,
        hint: `put ${names.join(', ')} of ${spec.text} into ${dir}`,
      });
    }
    if (!matches(reported, spec)) {
      throw new ConfigError(`--dir ${dir}: ${name} reports ${reported}, not ${spec.text}`, {
        hint: `use binaries of ${spec.text}, or pass --kube-version ${reported}`,
      });
    }
    version ??= reported;
  }
  return { version: version!, dir, ...paths, names: [...names], source: 'dir', fromCache: false };
}

function matches(reported: string, spec: KubeVersion): boolean {
  const m = /^v1\.(\d+)\.(\d+)(?:-((?:alpha|beta|rc)\.\d+))?/.exec(reported);
  if (!m) return false;
  return (
    Number(m[1]) === spec.minor && (spec.patch === undefined || (Number(m[2]) === spec.patch && m[3] === spec.pre))
  );
}

/** Names the version and lists what the proxy can offer instead. */
async function notBuildable(err: NotBuildableError, spec: KubeVersion, go: GoTool): Promise<CredprovError> {
  const sameMinor = await candidateVersions(`1.${spec.minor}`, go).catch(() => [] as string[]);
  const listed = (await go.listVersions(KUBE_MODULE).catch(() => [] as string[])).filter((v) =>
    /^v1\.\d+\.\d+$/.test(v),
  );
  const others = sameMinor.filter((v) => v !== err.version && compareVersions(v, err.version) < 0);
  const newestListed = listed.sort((a, b) => compareVersions(b, a)).slice(0, 8);
  return new PrerequisiteError(err.reason, {
    detail: [
      err.detail ?? '',
      `older 1.${spec.minor} releases the proxy knows: ${others.join(', ') || 'none'}`,
      `releases 'go list -m -versions ${KUBE_MODULE}' lists (incomplete): ${newestListed.join(', ') || 'none'}`,
    ]
      .join('\n')
      .trim(),
    hint:
      others.length > 0
        ? `try --kube-version ${others[0]} (or 1.${spec.minor} for the newest that builds), or --dir with prebuilt binaries`
        : 'give --dir with prebuilt binaries',
  });
}

export { DEFAULT_KUBE_VERSION };
