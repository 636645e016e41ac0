// Builds kubelet, kube-apiserver and kubectl of one release from the Go module
// proxy: a wrapper module that requires k8s.io/kubernetes at the tag and pins
// every staging module (gomod.ts), version-stamped like a release build
// (ldflags.ts), static (CGO_ENABLED=0, upstream's default since 1.36).
import { cpus } from 'node:os';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CredprovError } from '../../core/errors.ts';
import { type Logger, noopLogger } from '../../core/logger.ts';
import { type Progress, step } from '../../core/progress.ts';
import { describeBinaries, type BinaryRecord } from './cache.ts';
import { classifyProxyError, type GoTool, type ProxyFailure } from './go.ts';
import { KUBE_MODULE, parseKubeGoMod, stagingVersion, toolsGo, wrapperGoMod } from './gomod.ts';
import { kubeLdflags } from './ldflags.ts';
import { isPreRelease, releasesOf } from './versions.ts';

export interface BuildOptions {
  version: string;
  names: readonly string[];
  /** The staging dir: binaries land here, build.log too. */
  into: string;
  go: GoTool;
  progress: Progress;
  log?: Logger;
  signal?: AbortSignal;
}

export interface BuildResult {
  binaries: Record<string, BinaryRecord>;
  goVersion: string;
  ldflags: string;
  /** k8s.io/kubernetes@v1.37.1 h1:… */
  origin: string;
  /** Staging modules taken at another version (preReleaseSubstitutes). */
  substitutes?: Record<string, string>;
}

/** The proxy cannot deliver the source of this version; the resolver may try another patch. */
export class NotBuildableError extends CredprovError {
  readonly failure: ProxyFailure;
  readonly version: string;

  constructor(version: string, failure: ProxyFailure, goError: string) {
    super(`${KUBE_MODULE}@${version} cannot be built from the Go module proxy: ${explain(failure)}`, {
      detail: goError,
    });
    this.failure = failure;
    this.version = version;
  }
}

function explain(f: ProxyFailure): string {
  switch (f) {
    case 'refused':
      return 'the proxy refuses its source zip (403, probably too large)';
    case 'no-checksum':
      return 'the checksum database has no entry for it (404)';
    case 'unknown-version':
      return 'the proxy does not know this version';
    case 'network':
      return 'the proxy is unreachable';
    default:
      return 'go mod download failed';
  }
}

export const KUBE_PACKAGES: Record<string, string> = {
  kubelet: `${KUBE_MODULE}/cmd/kubelet`,
  'kube-apiserver': `${KUBE_MODULE}/cmd/kube-apiserver`,
  'kube-controller-manager': `${KUBE_MODULE}/cmd/kube-controller-manager`,
  'kube-scheduler': `${KUBE_MODULE}/cmd/kube-scheduler`,
  kubectl: `${KUBE_MODULE}/cmd/kubectl`,
  kubeadm: `${KUBE_MODULE}/cmd/kubeadm`,
};

/**
 * Rough cold-build minutes for the progress line: all five binaries of v1.37.1
 * took 7.7 min on 2 cores with an empty Go build cache, a later minor 3.4 min
 * with the cache warm (scripts/bench-binaries.ts reads the manifests).
 */
export function estimateColdBuildMinutes(cores = cpus().length): number {
  return Math.max(3, Math.round(16 / Math.max(1, cores)));
}

export async function buildKubeBinaries(o: BuildOptions): Promise<BuildResult> {
  const log = o.log ?? noopLogger;
  const source = await step(o.progress, `fetching ${KUBE_MODULE}@${o.version} from the Go module proxy`, async () => {
    const dl = await o.go.download(KUBE_MODULE, o.version);
    if (!dl.ok) throw new NotBuildableError(o.version, dl.failure ?? 'other', dl.error ?? '');
    const sv = stagingVersion(o.version);
    if (!(await o.go.info('k8s.io/kubelet', sv))) {
      throw new NotBuildableError(
        o.version,
        'unknown-version',
        `staging module k8s.io/kubelet@${sv} is not on the proxy`,
      );
    }
    return dl;
  });
  const kubeMod = parseKubeGoMod(await readFile(source.goModFile!, 'utf8'), `${KUBE_MODULE}@${o.version} go.mod`);
  const info = await o.go.info(KUBE_MODULE, o.version);
  const goVersion = await o.go.version();

  const work = join(o.into, '.work');
  await mkdir(work, { recursive: true });
  const logFile = join(o.into, 'build.log');
  const packages = o.names.map((n) => {
    const p = KUBE_PACKAGES[n];
    if (!p) throw new CredprovError(`no known package for '${n}'`);
    return p;
  });
  const substitutes = isPreRelease(o.version)
    ? await step(o.progress, `checking the ${kubeMod.staging.length} staging modules of a pre-release`, () =>
        preReleaseSubstitutes(o.go, kubeMod.staging, o.version),
      )
    : {};
  if (Object.keys(substitutes).length > 0) {
    const taken = Object.entries(substitutes).map(([m, v]) => `${m}@${v}`);
    const why = `the proxy refuses ${taken.length} staging modules at ${stagingVersion(o.version)}; building with the previous minor's (${taken.join(', ')}), so this is not ${o.version}'s exact source (the manifest lists them)`;
    o.progress.note(why);
    log.debug(why);
  }
  await writeFile(join(work, 'go.mod'), wrapperGoMod(kubeMod, o.version, substitutes));
  await writeFile(join(work, 'tools.go'), toolsGo(packages));
  log.debug(`wrapper module in ${work}, log in ${logFile}`);

  const run = (args: string[], env: Record<string, string> = {}) =>
    o.go.run(args, { cwd: work, env, logFile, ...(o.signal ? { signal: o.signal } : {}) });
  await step(o.progress, 'resolving dependencies (go mod tidy)', () =>
    run(['mod', 'tidy']).catch((err: unknown) => {
      // A staging module the proxy or the checksum database cannot deliver (seen: k8s.io/mount-utils@v0.35.6,
      // 404 from sum.golang.org) makes this release unbuildable here, just like a refused kubernetes zip:
      // a minor-version request then falls back to an older patch.
      const output = err instanceof CredprovError ? `${err.detail ?? ''}\n${err.reason}` : String(err);
      const failure = classifyProxyError(output);
      if (failure === 'no-checksum' || failure === 'refused')
        throw new NotBuildableError(
          o.version,
          failure,
          output
            .trim()
            .split('\n')
            .filter((l) => /verifying|404|403|zip/.test(l))
            .slice(0, 3)
            .join('\n'),
        );
      throw err;
    }),
  );

  const ldflags = kubeLdflags({ version: o.version, buildDate: info?.time ?? new Date().toISOString() });
  // kubeadm alone, added to a cached set, reuses most of what the Go build cache holds from it (36 s for v1.36.5).
  const added = o.names.every((n) => n === 'kubeadm');
  o.progress.note(
    `building ${o.names.join(', ')} ${o.version} from the Go module proxy (first time only, ${added ? 'about a minute after the other binaries of the release' : `~${estimateColdBuildMinutes()} min on ${cpus().length} cores with an empty Go build cache, less after another version`})`,
  );
  await step(o.progress, `go build ${o.names.join(' ')}`, () =>
    run(['build', '-trimpath', '-ldflags', ldflags, '-o', `${o.into}/`, ...packages], { CGO_ENABLED: '0' }),
  );
  await rm(work, { recursive: true, force: true });
  return {
    binaries: await describeBinaries(o.into, o.names),
    goVersion,
    ldflags,
    origin: `${KUBE_MODULE}@${o.version}${source.sum ? ` ${source.sum}` : ''}`,
    ...(Object.keys(substitutes).length ? { substitutes } : {}),
  };
}

/**
 * The publishing bot tags a pre-release's staging modules too, but this proxy refuses some of those
 * tags (seen for v0.38.0-alpha.0: cli-runtime, cri-streaming, kube-proxy, code-generator, the samples).
 * Each refused one is taken at the previous minor's newest release, which the build then either
 * compiles against (the packages used did not change) or refuses with Go's own error.
 */
export async function preReleaseSubstitutes(
  go: GoTool,
  staging: string[],
  kubeVersion: string,
): Promise<Record<string, string>> {
  const sv = stagingVersion(kubeVersion);
  const previousMinor = Number(sv.split('.')[1]) - 1;
  const out: Record<string, string> = {};
  for (const m of staging) {
    if (await go.info(m, sv)) continue;
    const older = await releasesOf(go, m, 0, previousMinor);
    if (older.length === 0)
      throw new NotBuildableError(
        kubeVersion,
        'refused',
        `${m}@${sv} is refused and ${m} has no v0.${previousMinor} release`,
      );
    out[m] = older[0]!;
  }
  return out;
}
