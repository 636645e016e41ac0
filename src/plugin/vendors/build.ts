// Third-party (vendor) credential provider plugins, built from the Go module
// proxy like containerd and the kube binaries, and cached per version:
// <cacheDir>/plugins/<binary>/<version>/{<binary>,manifest.json,build.log}.
//
// The module's own source (go mod download) is copied out of the module cache
// and built in place with its own go.mod and go.sum, exactly as the vendor's
// Makefile does (`go install pkg@version` refuses modules with replace
// directives, and k8s.io/cloud-provider-aws has one). So every dependency is
// the version the vendor pinned, checked against the vendor's go.sum.
// A version directory appears only by rename of a complete staging dir (cache.ts).
import { execa } from 'execa';
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildEntry,
  describeBinaries,
  makeWritable,
  removeStaleStaging,
  usableEntry,
  withLock,
  type KubeManifest,
} from '../../cluster/binaries/cache.ts';
import { NO_DWARF, systemGo, type GoTool } from '../../cluster/binaries/go.ts';
import { ConfigError, CredprovError, PrerequisiteError } from '../../core/errors.ts';
import { noopLogger, type Logger } from '../../core/logger.ts';
import { cacheDir as defaultCacheDir } from '../../core/paths.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';

/** One vendor plugin: which module, which main package, how the vendor stamps its version. */
export interface VendorPluginRecipe {
  /** The executable's name (and the cache folder): ecr-credential-provider. */
  binary: string;
  /** Go module: k8s.io/cloud-provider-aws. */
  module: string;
  /** Main package inside the module, relative: ./cmd/ecr-credential-provider. */
  packageDir: string;
  /** The vendor's ldflags for a version (its Makefile's LDFLAGS). */
  ldflags(version: string): string;
  /** Build tags, if the vendor uses any. */
  tags?: string;
  /** The arguments that make the binary print its version (default --version; cobra tools often have a `version` command). */
  versionArgs?: string[];
  /** What the built binary prints for `version` when that is not the module version itself (a pseudo-version's stamp). */
  reportedVersion?(version: string): string;
  /**
   * Completes the copied module source before the build, for a module whose zip lacks what its go.mod names
   * (auth-provider-gcp: the `./providers` replace target is a nested module, left out of the zip).
   * Returns what it added, for the manifest's origin.
   */
  prepare?(work: string, go: GoTool): Promise<string>;
}

export interface VendorPluginOptions {
  /** Exact version (v1.37.1). */
  version: string;
  cacheDir?: string;
  progress?: Progress;
  log?: Logger;
  go?: GoTool;
  signal?: AbortSignal;
  /** Never build: undefined when it is not cached (availability checks). */
  cachedOnly?: boolean;
}

export interface VendorPluginBinary {
  binary: string;
  version: string;
  /** Absolute path of the executable. */
  path: string;
  dir: string;
  manifest: KubeManifest;
  fromCache: boolean;
}

export function pluginCacheRoot(binary: string, cacheDir = defaultCacheDir()): string {
  return join(cacheDir, 'plugins', binary);
}

async function cached(
  recipe: VendorPluginRecipe,
  root: string,
  version: string,
  fromCache = true,
): Promise<VendorPluginBinary | undefined> {
  const dir = join(root, version);
  const manifest = await usableEntry(dir, [recipe.binary]);
  if (!manifest) return undefined;
  return { binary: recipe.binary, version, path: join(dir, recipe.binary), dir, manifest, fromCache };
}

/** The cached build of `version`, or a build of it from the Go module proxy (first time only). */
export async function ensureVendorPlugin(
  recipe: VendorPluginRecipe,
  o: VendorPluginOptions,
): Promise<VendorPluginBinary | undefined> {
  // A release (v1.37.1) or a Go pseudo-version (v0.0.0-20241115222652-d74b2e1d6653: modules without release tags).
  if (!/^v\d+\.\d+\.\d+(-\d{14}-[0-9a-f]{12})?$/.test(o.version))
    throw new ConfigError(`'${o.version}' is not an exact ${recipe.module} version`, {
      hint: 'write it as v1.37.1 (or a pseudo-version v0.0.0-<yyyymmddhhmmss>-<12 hex>)',
    });
  const root = pluginCacheRoot(recipe.binary, o.cacheDir ?? defaultCacheDir());
  const hit = await cached(recipe, root, o.version);
  if (hit || o.cachedOnly) return hit;
  await removeStaleStaging(root);
  return build(recipe, root, o);
}

async function build(recipe: VendorPluginRecipe, root: string, o: VendorPluginOptions): Promise<VendorPluginBinary> {
  const progress = o.progress ?? silentProgress;
  const log = o.log ?? noopLogger;
  const go = o.go ?? systemGo({ log });
  const version = o.version;
  return withLock(
    join(root, `${version}.lock`),
    async () => {
      const hit = await cached(recipe, root, version);
      if (hit) return hit;
      await buildEntry(root, version, join(root, version), async (staging, t0) => {
        const logFile = join(staging, 'build.log');
        const source = await step(
          progress,
          `fetching ${recipe.module}@${version} from the Go module proxy`,
          async () => {
            const dl = await go.download(recipe.module, version);
            if (!dl.ok || !dl.dir) {
              throw new PrerequisiteError(
                `${recipe.module}@${version} is not available from the Go module proxy (${dl.failure ?? 'unknown'})`,
                {
                  detail: dl.error ?? '',
                  hint: `check \`go list -m -versions ${recipe.module}\` and network access to GOPROXY`,
                },
              );
            }
            return dl;
          },
        );
        // The module cache is read-only; the build needs a writable copy (go may touch go.sum).
        const work = join(staging, '.src');
        await cp(source.dir!, work, { recursive: true });
        await makeWritable(work);
        const added = recipe.prepare
          ? await step(progress, `completing ${recipe.module}@${version}`, () => recipe.prepare!(work, go))
          : undefined;
        const ldflags = recipe.ldflags(version);
        progress.note(
          `building ${recipe.binary} ${version} from the Go module proxy (first time only: a minute with warm Go caches, ten with cold ones)`,
        );
        await step(progress, `go build ${recipe.binary} ${version}`, () =>
          go.run(
            [
              'build',
              '-trimpath',
              ...(recipe.tags ? ['-tags', recipe.tags] : []),
              '-ldflags',
              ldflags,
              '-o',
              join(staging, recipe.binary),
              recipe.packageDir,
            ],
            // The vendor's own go.sum decides every dependency: -mod=readonly refuses anything it does not list.
            // GOWORK=off: a module zip may carry the repository's go.work but never the workspace's other
            // modules (aws-iam-authenticator's names ./tests/e2e), so go would refuse to build at all.
            {
              cwd: work,
              env: { CGO_ENABLED: '0', GOFLAGS: `-mod=readonly ${NO_DWARF}`, GOWORK: 'off' },
              logFile,
              ...(o.signal ? { signal: o.signal } : {}),
            },
          ),
        );
        await rm(work, { recursive: true, force: true });
        const probe = await execa(join(staging, recipe.binary), recipe.versionArgs ?? ['--version'], {
          reject: false,
          timeout: 30_000,
        });
        const reported = recipe.reportedVersion?.(version) ?? version;
        if (probe.exitCode !== 0 || !String(probe.stdout).includes(reported)) {
          throw new CredprovError(`${recipe.binary} built for ${version} does not report ${reported}`, {
            detail: `${probe.stdout}\n${probe.stderr}`,
            hint: 'nothing was cached',
          });
        }
        return {
          version,
          source: 'build',
          origin: `${recipe.module}@${version}${source.sum ? ` ${source.sum}` : ''} (${recipe.packageDir})${added ? `; ${added}` : ''}`,
          binaries: await describeBinaries(staging, [recipe.binary]),
          createdAt: new Date().toISOString(),
          durationMs: Date.now() - t0,
          goVersion: await go.version(),
          ldflags,
        };
      });
      return (await cached(recipe, root, version, false))!;
    },
    {
      onWait: (pid) =>
        progress.note(`waiting for another credprov (pid ${pid}) that is building ${recipe.binary} ${version}`),
    },
  );
}
