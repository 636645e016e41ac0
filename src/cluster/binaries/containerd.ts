// containerd of a version the chosen kubelet supports, built from the Go
// module proxy (Debian's 1.6 is too old for kubelet >= 1.35). The minor comes
// from the version table (containerdSupported, newest first); the patch is the
// newest the proxy serves. Cached per version like the kube binaries; any
// cached build of the wanted minor is accepted without asking the network.
import { execa } from 'execa';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, CredprovError, PrerequisiteError } from '../../core/errors.ts';
import { type Logger, noopLogger } from '../../core/logger.ts';
import { cacheDir as defaultCacheDir } from '../../core/paths.ts';
import { type Progress, silentProgress, step } from '../../core/progress.ts';
import { behaviourFor } from '../../versions/table.ts';
import {
  buildEntry,
  describeBinaries,
  listEntries,
  removeStaleStaging,
  usableEntry,
  withLock,
  type KubeManifest,
} from './cache.ts';
import { systemGo, type GoTool } from './go.ts';
import { toolsGo } from './gomod.ts';
import { compareVersions, DEFAULT_KUBE_VERSION, releasesOf } from './versions.ts';

export const CONTAINERD_MODULE = 'github.com/containerd/containerd/v2';
export const CONTAINERD_BINARIES = ['containerd', 'ctr', 'containerd-shim-runc-v2'] as const;

export interface ContainerdOptions {
  /** v2.3.7 (exact) or 2.3 (newest patch); default: the newest minor the kube version supports. */
  version?: string;
  /** The kubelet it must serve; picks the containerd minor. Default DEFAULT_KUBE_VERSION. */
  kubeVersion?: string;
  cacheDir?: string;
  progress?: Progress;
  log?: Logger;
  go?: GoTool;
  signal?: AbortSignal;
}

export interface ContainerdBinaries {
  version: string;
  dir: string;
  containerd: string;
  ctr: string;
  shim: string;
  fromCache: boolean;
}

export function containerdCacheRoot(cacheDir = defaultCacheDir()): string {
  return join(cacheDir, 'containerd');
}

/** The containerd line (major, minor) to use for a kube version: the newest the version table lists. */
export function containerdLineFor(kubeVersion: string): { major: number; minor: number } {
  const supported = behaviourFor(kubeVersion).containerdSupported;
  const newest = [...supported].sort((a, b) => compareVersions(b, a))[0];
  if (!newest) throw new ConfigError(`the version table names no containerd for Kubernetes ${kubeVersion}`);
  const [major, minor] = newest.split('.').map(Number) as [number, number];
  return { major, minor };
}

function parseContainerdSpec(text: string): { major: number; minor: number; patch?: number } {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+|x))?$/.exec(text.trim());
  if (!m) throw new ConfigError(`'${text}' is not a containerd version`, { hint: 'write it as 2.3 or v2.3.7' });
  return { major: Number(m[1]), minor: Number(m[2]), ...(m[3] && m[3] !== 'x' ? { patch: Number(m[3]) } : {}) };
}

export async function ensureContainerd(opts: ContainerdOptions = {}): Promise<ContainerdBinaries> {
  const root = containerdCacheRoot(opts.cacheDir ?? defaultCacheDir());
  const line = opts.version
    ? parseContainerdSpec(opts.version)
    : containerdLineFor(opts.kubeVersion ?? DEFAULT_KUBE_VERSION);
  const prefix = `v${line.major}.${line.minor}.`;
  await removeStaleStaging(root);

  if ('patch' in line && line.patch !== undefined) {
    const exact = `${prefix}${line.patch}`;
    return (await cachedContainerd(root, exact)) ?? build(exact, root, opts);
  }
  const local = (await listContainerd(root)).filter((m) => m.version.startsWith(prefix));
  if (local.length > 0) return (await cachedContainerd(root, local[0]!.version))!;

  const go = opts.go ?? systemGo(opts.log ? { log: opts.log } : {});
  const releases = await releasesOf(go, CONTAINERD_MODULE, line.major, line.minor);
  if (releases.length === 0) {
    throw new PrerequisiteError(
      `no containerd ${line.major}.${line.minor} release is known to the Go module proxy and none is cached`,
      {
        hint: 'check network access to the Go module proxy (GOPROXY)',
      },
    );
  }
  return build(releases[0]!, root, opts);
}

async function build(version: string, root: string, opts: ContainerdOptions): Promise<ContainerdBinaries> {
  const progress = opts.progress ?? silentProgress;
  const log = opts.log ?? noopLogger;
  const go = opts.go ?? systemGo({ log });
  return withLock(
    join(root, `${version}.lock`),
    async () => {
      const hit = await cachedContainerd(root, version);
      if (hit) return hit;
      await buildEntry(root, version, join(root, version), async (staging, t0) => {
        const logFile = join(staging, 'build.log');
        const pkg = (cmd: string) => `${CONTAINERD_MODULE}/cmd/${cmd}@${version}`;
        const ldflags = `-s -w -X ${CONTAINERD_MODULE}/version.Version=${version} -X ${CONTAINERD_MODULE}/version.Package=${CONTAINERD_MODULE}`;
        // Static, no cgo: drops the btrfs snapshotter (cgo-only), which a test node does not need.
        const env = { CGO_ENABLED: '0', GOBIN: staging };
        const tags = 'urfave_cli_no_docs osusergo netgo';
        const run = (args: string[]) =>
          go.run(args, { cwd: staging, env, logFile, ...(opts.signal ? { signal: opts.signal } : {}) });
        progress.note(`building containerd ${version} from the Go module proxy (first time only, a few minutes)`);
        try {
          await step(progress, `go install containerd, ctr ${version}`, () =>
            run(['install', '-trimpath', '-tags', tags, '-ldflags', ldflags, pkg('containerd'), pkg('ctr')]),
          );
          // The shim never serves gRPC (ttrpc only); upstream builds it with no_grpc to keep it small.
          await step(progress, `go install containerd-shim-runc-v2 ${version}`, () =>
            run([
              'install',
              '-trimpath',
              '-tags',
              `${tags} no_grpc`,
              '-ldflags',
              ldflags,
              pkg('containerd-shim-runc-v2'),
            ]),
          );
        } catch (err) {
          // `go install pkg@version` refuses a module whose go.mod has exclude or replace directives
          // (containerd v2.1.x has excludes): build inside a wrapper module that carries them instead.
          if (
            !(err instanceof CredprovError) ||
            !/(exclude|replace) directives/.test(`${err.detail ?? ''}${err.reason}`)
          )
            throw err;
          await step(progress, `go build containerd, ctr, containerd-shim-runc-v2 ${version} (wrapper module)`, () =>
            buildInWrapper(go, version, staging, {
              tags,
              ldflags,
              logFile,
              ...(opts.signal ? { signal: opts.signal } : {}),
            }),
          );
        }
        const reported = await containerdVersion(join(staging, 'containerd'));
        if (reported !== version)
          throw new CredprovError(`containerd built for ${version} reports ${reported}`, {
            hint: 'nothing was cached',
          });
        return {
          version,
          source: 'build',
          origin: `${CONTAINERD_MODULE}@${version}`,
          binaries: await describeBinaries(staging, CONTAINERD_BINARIES),
          createdAt: new Date().toISOString(),
          durationMs: Date.now() - t0,
          goVersion: await go.version(),
          ldflags,
        };
      });
      return (await cachedContainerd(root, version, false))!;
    },
    {
      onWait: (pid) =>
        progress.note(`waiting for another credprov (pid ${pid}) that is building containerd ${version}`),
    },
  );
}

/**
 * Builds the three binaries from a module that requires containerd at
 * `version` and copies its go, exclude and replace directives, as the main
 * module's would apply. Used when `go install pkg@version` refuses the module.
 */
async function buildInWrapper(
  go: GoTool,
  version: string,
  staging: string,
  o: { tags: string; ldflags: string; logFile: string; signal?: AbortSignal },
): Promise<void> {
  const dl = await go.download(CONTAINERD_MODULE, version);
  if (!dl.ok || !dl.goModFile)
    throw new CredprovError(
      `cannot fetch ${CONTAINERD_MODULE}@${version} from the Go module proxy: ${dl.error ?? 'no go.mod'}`,
    );
  const work = join(staging, '.work');
  await mkdir(work, { recursive: true });
  await writeFile(join(work, 'go.mod'), containerdWrapperGoMod(await readFile(dl.goModFile, 'utf8'), version));
  const cmds = ['containerd', 'ctr', 'containerd-shim-runc-v2'].map((c) => `${CONTAINERD_MODULE}/cmd/${c}`);
  await writeFile(join(work, 'tools.go'), toolsGo(cmds));
  const run = (args: string[], env: Record<string, string> = {}) =>
    go.run(args, {
      cwd: work,
      env: { CGO_ENABLED: '0', ...env },
      logFile: o.logFile,
      ...(o.signal ? { signal: o.signal } : {}),
    });
  await run(['mod', 'tidy']);
  await run(['build', '-trimpath', '-tags', o.tags, '-ldflags', o.ldflags, '-o', `${staging}/`, cmds[0]!, cmds[1]!]);
  await run(['build', '-trimpath', '-tags', `${o.tags} no_grpc`, '-ldflags', o.ldflags, '-o', `${staging}/`, cmds[2]!]);
  await rm(work, { recursive: true, force: true });
}

/** The wrapper's go.mod: containerd's go line and its exclude/replace directives (single lines and blocks), then the requirement. */
export function containerdWrapperGoMod(containerdGoMod: string, version: string): string {
  const lines = containerdGoMod.split('\n');
  const goLine = lines.find((l) => /^go \d/.test(l)) ?? 'go 1.24';
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^(exclude|replace)\s*\($/.test(l.trim())) {
      const block = [l];
      while (++i < lines.length && lines[i]!.trim() !== ')') block.push(lines[i]!);
      kept.push(...block, ')');
    } else if (/^(exclude|replace)\s+\S/.test(l)) kept.push(l);
  }
  return [
    'module credprov.local/containerdbuild',
    '',
    goLine,
    '',
    `require ${CONTAINERD_MODULE} ${version}`,
    '',
    ...kept,
    '',
  ].join('\n');
}

/** `containerd --version` prints "containerd github.com/containerd/containerd/v2 v2.3.7 <revision>". */
export async function containerdVersion(path: string): Promise<string> {
  const r = await execa(path, ['--version'], { reject: false, timeout: 30_000 });
  const m = /\s(v?\d+\.\d+\.\d+\S*)/.exec(String(r.stdout));
  if (r.exitCode !== 0 || !m)
    throw new CredprovError(`${path} --version did not report a version`, { detail: `${r.stdout}\n${r.stderr}` });
  return m[1]!.startsWith('v') ? m[1]! : `v${m[1]}`;
}

async function cachedContainerd(
  root: string,
  version: string,
  fromCache = true,
): Promise<ContainerdBinaries | undefined> {
  const dir = join(root, version);
  if (!(await usableEntry(dir, CONTAINERD_BINARIES))) return undefined;
  return {
    version,
    dir,
    containerd: join(dir, 'containerd'),
    ctr: join(dir, 'ctr'),
    shim: join(dir, 'containerd-shim-runc-v2'),
    fromCache,
  };
}

/** Cached containerd builds, newest first. */
export async function listContainerd(root: string): Promise<KubeManifest[]> {
  return (await listEntries(root, CONTAINERD_BINARIES)).sort((a, b) => compareVersions(b.version, a.version));
}

/** Is `version` at or above the minimum the version table lists for its containerd line (or on a newer line)? */
export function containerdSupports(version: string, supported: string[]): boolean {
  const [maj, min] = version.replace(/^v/, '').split('.').map(Number) as [number, number];
  const same = supported.find((s) => s.startsWith(`${maj}.${min}.`));
  if (same) return compareVersions(version, same) >= 0;
  const newest = [...supported].sort((a, b) => compareVersions(b, a))[0];
  return newest !== undefined && compareVersions(`${maj}.${min}.0`, newest) > 0;
}

/**
 * The newest cached containerd build that kubelet `kubeVersion` supports, or
 * undefined. Never builds and never touches the network: for availability
 * checks and for providers that prefer a cached build over the one on PATH.
 */
export async function findCachedContainerd(
  kubeVersion: string,
  cacheDir = defaultCacheDir(),
): Promise<ContainerdBinaries | undefined> {
  const supported = behaviourFor(kubeVersion).containerdSupported;
  const root = containerdCacheRoot(cacheDir);
  const match = (await listContainerd(root)).find((m) => containerdSupports(m.version, supported));
  return match ? cachedContainerd(root, match.version) : undefined;
}
