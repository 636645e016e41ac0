// What the downgrade cases share: the lab, the fleet and the suite's own
// provider spec, and the moves on the one node they all restart (back to the
// suite's config, a start that may be refused, a pod watched until it runs,
// the pull secret of the records cases).
import type { V1Pod } from '@kubernetes/client-node';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import type { CredentialProviderSpec } from '../../src/api/spec/types.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import type { ContainerOutcome } from '../../src/model/ensure-secret-pulled.ts';
import {
  createPullSecret,
  tryRestartKubelet,
  watchPod,
  type CaseContext,
  type Environment,
  type Fleet,
  type KubeletStart,
  type LabRegistry,
  type PodRun,
} from '../../src/run/kit.ts';
import { PULL_SECRET } from './plan.ts';

export interface DowngradeSetting {
  lab: LabRegistry;
  fleet: Fleet;
  /** The suite's credential provider spec, as the environment came up with it. */
  baseProvider: CredentialProviderSpec;
}

/**
 * The kubelet back to the suite's config and default gates. Cases run one after another on one node and
 * each may leave it changed; restartKubelet reads the node's state, so the run's first Environment will do.
 */
export const resetKubelet = (ctx: CaseContext, s: DowngradeSetting): Promise<Environment> =>
  ctx.provider.restartKubelet(ctx.environment, { credentialProvider: s.baseProvider, featureGates: {} }, ctx.progress);

export interface ContainerState {
  phase: string;
  containerID: string;
  restartCount: number;
  running: boolean;
}

function containerState(pod: V1Pod): ContainerState {
  const cs = pod.status?.containerStatuses?.[0];
  return {
    phase: pod.status?.phase ?? '',
    containerID: cs?.containerID ?? '',
    restartCount: cs?.restartCount ?? -1,
    running: Boolean(cs?.state?.running),
  };
}

/** Watches the pod (in `default`; it may not be there yet) until its container runs. */
export async function waitRunning(env: Environment, name: string, timeoutMs = 60_000): Promise<ContainerState> {
  let last: ContainerState | undefined;
  const step = (pod: V1Pod) => {
    last = containerState(pod);
    return last.running && last.containerID ? last : undefined;
  };
  return watchPod(env, name, 'default', timeoutMs, step, {
    mayNotExistYet: true,
    timeoutMessage: () => `pod ${name} did not reach Running within ${timeoutMs / 1000}s (${JSON.stringify(last)})`,
  });
}

/** Starts the kubelet with a config and gates: 'refuses to start' with the kubelet's own error, or 'starts'. */
export const tryStart = (
  ctx: CaseContext,
  env: Environment,
  config: CredentialProviderConfig,
  gates: Record<string, boolean>,
): Promise<KubeletStart> =>
  tryRestartKubelet(ctx, env, {
    credentialProvider: { ...env.spec.credentialProvider!, config: config as unknown as Record<string, unknown> },
    featureGates: gates,
  });

/** What the pod did, in the ensure-secret-pulled model's words. */
export function outcomeOf(p: PodRun): ContainerOutcome | string {
  if (p.outcome.kind === 'completed') return 'Running';
  if (p.outcome.reason === 'ErrImageNeverPull') return 'ErrImageNeverPull';
  if (p.outcome.reason === 'ErrImagePull' || p.outcome.reason === 'ImagePullBackOff') {
    return p.failure === 'unauthorized' ? 'ErrImagePull' : `ErrImagePull (${p.failure})`;
  }
  return p.outcome.reason;
}

/** A dockerconfigjson secret in `default` whose one auth key is the image's own host (the lab registry stands in for it); deleted after the case. */
export const createImageSecret = (ctx: CaseContext, env: Environment, lab: LabRegistry, image: string) =>
  createPullSecret(
    env,
    { name: PULL_SECRET, namespace: 'default', auths: { [normalizeImage(image).registry]: lab.user } },
    ctx,
  );
