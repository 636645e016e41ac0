// A kubelet restart whose refusal is the observation: a config or a gate the
// kubelet may refuse (a rollback path, a skewed version, a config directory).
// The provider throws when the kubelet does not come back; here that is an
// outcome with the kubelet's own error, and the environment the case goes on with.
import { errorMessage } from '../core/errors.ts';
import type { Environment, KubeletChange } from '../cluster/provider.ts';
import type { SuiteRun } from './suite.ts';

export interface KubeletStart {
  outcome: 'starts' | 'refuses to start';
  /** The kubelet's own error, whole, when it refused ('' when it started). */
  error: string;
  /** The restarted environment; the one given when the kubelet refused. */
  env: Environment;
}

/** Restarts the kubelet with `change`: 'starts', or 'refuses to start' with its error. */
export async function tryRestartKubelet(
  ctx: Pick<SuiteRun, 'provider' | 'progress'>,
  env: Environment,
  change: KubeletChange,
): Promise<KubeletStart> {
  try {
    return { outcome: 'starts', error: '', env: await ctx.provider.restartKubelet(env, change, ctx.progress) };
  } catch (err) {
    return { outcome: 'refuses to start', error: errorMessage(err), env };
  }
}
