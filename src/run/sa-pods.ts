// Pods as service-account-token (KEP-4412) suites run them: an API pod bound
// to the node with its service account but no token volume (the plugin's token
// is then the kubelet's own request), possibly pulling its image twice (an init
// container, then the main one); a static pod from the kubelet's
// staticPodPath, seen through its mirror pod; and the outcome of either, a
// pull the registry refused told apart from any other failure.
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { kubeApi } from '../cluster/api.ts';
import type { Environment } from '../cluster/provider.ts';
import { pullFailure } from './lab.ts';
import { PULL_FAILURES, podEvents, watchPod, type PodEvent, type PodOutcome } from './pods.ts';

/** `success`, `failure` (the registry refused the pull: no or wrong credentials) or `error: <the kubelet's message>`. */
export type PullOutcome = 'success' | 'failure' | `error: ${string}`;

export interface SaPod {
  name: string;
  image: string;
  serviceAccount?: string;
  /** The node it is bound to (default: the environment's nodeName). */
  nodeName?: string;
  /** imagePullPolicy of its containers (default Always). */
  pullPolicy?: 'Always' | 'Never';
  /** Pull the image twice in one pod: an init container, then the main container (sequential pulls, one token). */
  twice?: boolean;
}

function podSpec(p: SaPod): Record<string, unknown> {
  const c = (name: string) => ({ name, image: p.image, imagePullPolicy: p.pullPolicy ?? 'Always' });
  return {
    restartPolicy: 'Never',
    dnsPolicy: 'Default',
    terminationGracePeriodSeconds: 0,
    ...(p.twice ? { initContainers: [c('first')] } : {}),
    containers: [c('main')],
  };
}

/** An API pod bound to the node, with its SA but no token volume (the plugin's token is the kubelet's own request). Returns it as stored. */
export async function createSaPod(env: Environment, ns: string, p: SaPod): Promise<V1Pod> {
  const [pod] = await (
    await kubeApi(env)
  ).apply<V1Pod>([
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: p.name, namespace: ns, labels: { 'app.kubernetes.io/managed-by': 'credprov' } },
      spec: {
        nodeName: p.nodeName ?? env.nodeName,
        automountServiceAccountToken: false,
        ...(p.serviceAccount ? { serviceAccountName: p.serviceAccount } : {}),
        ...podSpec(p),
      },
    },
  ]);
  return pod!;
}

/** A static pod manifest in the kubelet's staticPodPath (no SA: its mirror pod may not reference one). Returns the mirror pod's name. */
export async function writeStaticPod(env: Environment, dir: string, ns: string, p: SaPod): Promise<string> {
  const metadata = { name: p.name, namespace: ns, labels: { 'app.kubernetes.io/managed-by': 'credprov' } };
  const manifest = { apiVersion: 'v1', kind: 'Pod', metadata, spec: podSpec(p) };
  // The kubelet skips dotfiles: write aside, then rename into place.
  const tmp = join(dir, `.${p.name}.yaml.tmp`);
  await writeFile(tmp, JSON.stringify(manifest, null, 2));
  await rename(tmp, join(dir, `${p.name}.yaml`));
  return mirrorPodName(env, p.name);
}

/** The kubelet names a static pod's mirror pod after the manifest's pod and the node. */
export const mirrorPodName = (env: Environment, staticPod: string): string => `${staticPod}-${env.nodeName}`;

export async function removeStaticPod(dir: string, name: string): Promise<void> {
  await rm(join(dir, `${name}.yaml`), { force: true });
}

export interface ObservedPod {
  name: string;
  observed: PullOutcome;
  events: PodEvent[];
  uid?: string;
}

/** The main container terminated, or any of the pod's pulls (init containers too) failed. */
function saPodOutcome(pod: V1Pod): PodOutcome | undefined {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const failed = statuses.find((s) => s.state?.waiting?.reason && PULL_FAILURES.includes(s.state.waiting.reason));
  if (failed)
    return {
      kind: 'pull-failed',
      reason: failed.state!.waiting!.reason!,
      message: failed.state!.waiting!.message ?? '',
      pod,
    };
  const main = pod.status?.containerStatuses?.find((s) => s.name === 'main');
  if (main?.state?.terminated) return { kind: 'completed', exitCode: main.state.terminated.exitCode, pod };
  return undefined;
}

/** Waits until the pod's main container terminated or any of its pulls failed; tolerates a pod that does not exist yet (mirror pods). */
export async function observePod(env: Environment, name: string, ns: string, timeoutMs: number): Promise<ObservedPod> {
  const outcome = await watchPod(env, name, ns, timeoutMs, saPodOutcome, {
    mayNotExistYet: true,
    timeoutMessage: (last) =>
      `pod ${ns}/${name} neither completed nor failed its pull within ${Math.round(timeoutMs / 1000)}s ` +
      `(${last ? `phase ${last.status?.phase ?? 'unknown'}` : 'never appeared'})`,
  });
  const events = await podEvents(env, name, ns).catch(() => [] as PodEvent[]);
  let observed: PullOutcome;
  if (outcome.kind === 'completed')
    observed = outcome.exitCode === 0 ? 'success' : `error: container exited ${outcome.exitCode}`;
  else {
    const why = pullFailure(events, outcome);
    observed = why === 'unauthorized' ? 'failure' : `error: ${why}`;
  }
  const uid = outcome.pod.metadata?.uid;
  return { name, observed, events, ...(uid ? { uid } : {}) };
}
