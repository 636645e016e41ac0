// Another minor's kubelet for a case that swaps it in (a downgrade, version
// skew). The provider resolves the same binary when the case restarts the
// kubelet; resolving it first, as a step of its own, keeps a first-time build
// (3-4 minutes from the Go module proxy) out of the middle of the case's
// observations and names it in the progress output, instead of skipping a MUST
// check for a prerequisite credprov can make itself.
import { resolveKubeBinaries } from '../cluster/binaries/index.ts';
import type { Logger } from '../core/logger.ts';
import { cacheDir } from '../core/paths.ts';
import { step, type Progress } from '../core/progress.ts';

export interface KubeletBuildContext {
  progress: Progress;
  log: Logger;
  processEnv: NodeJS.ProcessEnv;
}

/** The exact version of the `minor` ("1.36") kubelet now in credprov's cache, built there first if it is not. */
export async function ensureKubelet(ctx: KubeletBuildContext, minor: string, why: string): Promise<string> {
  const resolved = await step(ctx.progress, `kubelet ${minor} for ${why} (a first-time build takes 3-4 min)`, () =>
    resolveKubeBinaries({
      version: minor,
      names: ['kubelet'],
      cacheDir: cacheDir(ctx.processEnv),
      progress: ctx.progress,
      log: ctx.log,
    }),
  );
  return resolved.version;
}
