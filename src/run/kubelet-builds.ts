// Another minor's kubelet for a case that swaps it in (a downgrade, version
// skew). The provider resolves the same binary when the case restarts the
// kubelet; resolving it first, as a step of its own, keeps a first-time build
// (3-4 minutes from the Go module proxy) out of the middle of the case's
// observations and names it in the progress output, instead of skipping a MUST
// check for a prerequisite credprov can make itself. A run starts the builds
// its suites declare (Suite.kubelets) at once, niced, beside the suites before
// them (startKubeletBuilds); the case then waits for that build, not for a new one.
import { kubeCacheRoot, listEntries, resolveKubeBinaries, systemGo } from '../cluster/binaries/index.ts';
import { parseKubeVersion } from '../versions/table.ts';
import type { Logger } from '../core/logger.ts';
import { cacheDir } from '../core/paths.ts';
import { step, type Progress } from '../core/progress.ts';

export interface KubeletBuildContext {
  progress: Progress;
  log: Logger;
  processEnv: NodeJS.ProcessEnv;
}

/** The niceness of a build that runs beside suites: they keep the CPU whenever they want it. */
const BACKGROUND_NICENESS = 10;

/** Builds (or cache lookups) in flight in this process, by cache dir and minor. */
const inFlight = new Map<string, Promise<string>>();

const key = (ctx: KubeletBuildContext, minor: string) => `${cacheDir(ctx.processEnv)}\0${minor}`;

function resolveKubelet(ctx: KubeletBuildContext, minor: string, background: boolean): Promise<string> {
  return resolveKubeBinaries({
    version: minor,
    names: ['kubelet'],
    cacheDir: cacheDir(ctx.processEnv),
    progress: ctx.progress,
    log: ctx.log,
    ...(background ? { go: systemGo({ log: ctx.log, nice: BACKGROUND_NICENESS }) } : {}),
  }).then((r) => r.version);
}

/**
 * Starts resolving each minor's kubelet now, in the background (a cache hit
 * costs a read; a build runs niced). Never rejects: a failed build is
 * reported by the ensureKubelet that waits for it.
 */
export function startKubeletBuilds(ctx: KubeletBuildContext, minors: string[], why: string): void {
  for (const minor of minors) {
    if (inFlight.has(key(ctx, minor))) continue;
    const build = resolveKubelet(ctx, minor, true);
    build.catch(() => {});
    inFlight.set(key(ctx, minor), build);
    build.then(
      (version) => ctx.log.debug(`kubelet ${minor} for ${why}: ${version} ready`),
      () => inFlight.delete(key(ctx, minor)),
    );
  }
}

/** Whether a kubelet of every one of `minors` ("1.36") is in credprov's cache already (no build to wait for). */
export async function kubeletsCached(ctx: Pick<KubeletBuildContext, 'processEnv'>, minors: string[]): Promise<boolean> {
  if (minors.length === 0) return true;
  const cached = (await listEntries(kubeCacheRoot(cacheDir(ctx.processEnv)), ['kubelet'])).map(
    (m) => parseKubeVersion(m.version).minor,
  );
  return minors.every((m) => cached.includes(parseKubeVersion(m).minor));
}

/** The exact version of the `minor` ("1.36") kubelet now in credprov's cache, built there first if it is not. */
export async function ensureKubelet(ctx: KubeletBuildContext, minor: string, why: string): Promise<string> {
  const started = inFlight.get(key(ctx, minor));
  if (started) return step(ctx.progress, `kubelet ${minor} for ${why} (its build started with the run)`, () => started);
  return step(ctx.progress, `kubelet ${minor} for ${why} (a first-time build takes 3-4 min)`, () =>
    resolveKubelet(ctx, minor, false),
  );
}
