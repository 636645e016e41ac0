// The kind CLI, built from the Go module proxy (sigs.k8s.io/kind has no
// replace directives, so `go install pkg@version` works), and the module's
// source dir: the node image copies kind's images/base/files/ from it. The
// provider runs a `kind` on PATH when there is one, this build otherwise.
import { execa } from 'execa';
import { join } from 'node:path';
import { CredprovError } from '../../../core/errors.ts';
import { type Logger, noopLogger } from '../../../core/logger.ts';
import { cacheDir as defaultCacheDir } from '../../../core/paths.ts';
import { type Progress, step } from '../../../core/progress.ts';
import { which } from '../../local/binaries.ts';
import { systemGo, type GoTool } from '../../binaries/go.ts';
import { builtManifest, cachedTool, ensureTool } from './tool-cache.ts';

export const KIND_VERSION = 'v0.33.0';
export const KIND_MODULE = 'sigs.k8s.io/kind';
const KIND_BINARIES = ['kind'] as const;

export interface KindOptions {
  cacheDir?: string;
  progress: Progress;
  log?: Logger;
  signal?: AbortSignal;
  /** Test seam. */
  go?: GoTool;
}

export interface KindCli {
  kind: string;
  version: typeof KIND_VERSION;
  /** GOMODCACHE/sigs.k8s.io/kind@v0.33.0: read-only, as Go extracted it. */
  moduleDir: string;
}

export async function ensureKind(o: KindOptions): Promise<KindCli> {
  const log = o.log ?? noopLogger;
  const go = o.go ?? systemGo({ log });
  // Also on a cache hit: the module cache may have been cleaned since (a local no-op otherwise).
  const source = await step(o.progress, `fetching ${KIND_MODULE}@${KIND_VERSION} source`, () =>
    go.download(KIND_MODULE, KIND_VERSION),
  );
  if (!source.ok || !source.dir)
    throw new CredprovError(`cannot fetch ${KIND_MODULE}@${KIND_VERSION} from the Go module proxy`, {
      detail: source.error ?? 'no module dir',
      hint: 'check network access to the Go module proxy (GOPROXY)',
    });
  const entry = await ensureTool({
    tool: 'kind',
    version: KIND_VERSION,
    binaries: KIND_BINARIES,
    cacheDir: o.cacheDir ?? defaultCacheDir(),
    progress: o.progress,
    fill: async (staging, t0) => {
      // As kind's Makefile builds releases: static, trimmed; its version is a constant in the source.
      const ldflags = '-s -w';
      await step(o.progress, `go install kind ${KIND_VERSION} (first time only, under a minute warm)`, () =>
        go.run(['install', '-trimpath', '-ldflags', ldflags, `${KIND_MODULE}@${KIND_VERSION}`], {
          cwd: staging,
          env: { CGO_ENABLED: '0', GOBIN: staging },
          logFile: join(staging, 'build.log'),
          ...(o.signal ? { signal: o.signal } : {}),
        }),
      );
      return builtManifest({
        tool: 'kind',
        version: KIND_VERSION,
        reported: await kindReportedVersion(join(staging, 'kind')),
        staging,
        binaries: KIND_BINARIES,
        module: KIND_MODULE,
        sum: source.sum,
        go,
        ldflags,
        startedAt: t0,
      });
    },
  });
  return { kind: join(entry.dir, 'kind'), version: KIND_VERSION, moduleDir: source.dir };
}

/** `kind version` prints "kind v0.33.0 go1.26.8 linux/amd64". */
export async function kindReportedVersion(path: string): Promise<string> {
  const r = await execa(path, ['version'], { reject: false, timeout: 30_000 });
  const m = /^kind (v\d+\.\d+\.\d+\S*)/.exec(String(r.stdout));
  if (r.exitCode !== 0 || !m)
    throw new CredprovError(`${path} version did not report a version`, { detail: `${r.stdout}\n${r.stderr}` });
  return m[1]!;
}

/**
 * The kind CLI to run: `kind` on PATH, else credprov's cached build, else
 * undefined. Never builds and never touches the network.
 */
export async function locateKind(
  env: NodeJS.ProcessEnv = process.env,
  cacheDir = defaultCacheDir(env),
): Promise<{ path: string; from: 'PATH' | 'cache' } | undefined> {
  const onPath = await which('kind', env.PATH ?? '');
  if (onPath) return { path: onPath, from: 'PATH' };
  const cached = await cachedTool(cacheDir, 'kind', KIND_VERSION, KIND_BINARIES);
  return cached ? { path: join(cached.dir, 'kind'), from: 'cache' } : undefined;
}
