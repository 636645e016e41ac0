// What the service-account-token suite asks of the cluster besides pods:
// the issuer as a relying party sees it (OIDC discovery, JWKS, TokenReview,
// through the API client with the admin kubeconfig), SubjectAccessReviews as the
// node (is the audience grant in effect yet?), pods with an SA and without a
// token volume, static pods, and the kubelet's log lines.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import type { JSONWebKeySet } from 'jose';
import type { ClusterIdentity, OidcDiscovery, TokenReviewStatus } from '../../registry/index.ts';
import { kubeApi, type ApiTarget } from '../../src/cluster/api.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { kubeletFilesOf, pullFailure } from '../../src/run/kit.ts';
import { PULL_FAILURES, podEvents, watchPod, type PodEvent, type PodOutcome } from '../../src/run/pods.ts';
import type { PullOutcome } from './views.ts';

/** The API server as an OIDC issuer and TokenReview endpoint, via the admin kubeconfig. */
export function clusterIdentity(t: ApiTarget): ClusterIdentity {
  let discovered: OidcDiscovery | undefined;
  return {
    async discovery() {
      discovered = JSON.parse(await (await kubeApi(t)).raw('/.well-known/openid-configuration')) as OidcDiscovery;
      return discovered;
    },
    async jwks() {
      const path = discovered ? new URL(discovered.jwks_uri).pathname : '/openid/v1/jwks';
      return JSON.parse(await (await kubeApi(t)).raw(path)) as JSONWebKeySet;
    },
    async tokenReview(token, audiences) {
      // The token goes in the request body only; an error names the call, never the body.
      const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences } };
      const review = await (await kubeApi(t)).authentication.createTokenReview({ body });
      return (review.status ?? {}) as TokenReviewStatus;
    },
  };
}

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

export interface Ran {
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
export async function observe(env: Environment, name: string, ns: string, timeoutMs: number): Promise<Ran> {
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

/** Kubelet log lines that contain every one of `needles` (the suite's namespace makes them this run's); needs capability kubeletFiles. */
export async function kubeletLines(env: Environment, needles: string[], max = 6): Promise<string[]> {
  const text = await readFile(kubeletFilesOf(env).log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => needles.every((n) => l.includes(n)))
    .slice(-max);
}

/** The error text of a kubelet structured log line (err="…"), unescaped. */
export function errText(line: string): string | undefined {
  const m = /\berr="((?:[^"\\]|\\.)*)"/.exec(line);
  return m ? m[1]!.replace(/\\"/g, '"').replace(/\\\\/g, '\\') : undefined;
}
