// Batches of pods for the matrix: created in one apply, watched with one
// `kubectl get pods` per second (not one per pod: 60 pods at once on two
// cores), their events read once at the end and attributed per container.
import { apply, kubectl, kubectlJson } from '../../src/cluster/kubectl.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import type { ContainerOutcome, EventKind } from '../../src/model/ensure-secret-pulled.ts';
import type { PodEvent } from '../../src/run/pods.ts';

export const BATCH_LABEL = 'credprov.io/espi-batch';

export interface PodPlan {
  name: string;
  containers: Array<{ name: string; image: string; pullPolicy: 'IfNotPresent' | 'Never' | 'Always' }>;
  imagePullSecrets?: string[];
  serviceAccountName?: string;
}

export interface ContainerRun {
  /** Running (ran or runs), ErrImagePull (also ImagePullBackOff), ErrImageNeverPull, or `no outcome (<waiting reason>)`. */
  outcome: ContainerOutcome | string;
  /** The kubelet's decisive image event for this container. */
  event?: { kind: EventKind; reason: string; message: string };
  events: PodEvent[];
}

export interface PodRunResult {
  containers: Map<string, ContainerRun>;
}

interface PodList {
  items: Array<{
    metadata: { name: string };
    status?: { containerStatuses?: Array<{ name: string; state?: { waiting?: { reason?: string }; terminated?: object; running?: object } }> };
  }>;
}

interface EventList {
  items: Array<{ type: string; reason: string; message: string; count?: number; involvedObject: { name: string; fieldPath?: string } }>;
}

const target = (env: Environment) => ({ kubectl: env.kubectl, kubeconfig: env.kubeconfig });

export function podManifest(env: Environment, ns: string, batch: string, p: PodPlan): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: p.name, namespace: ns, labels: { 'app.kubernetes.io/managed-by': 'credprov', [BATCH_LABEL]: batch } },
    spec: {
      nodeName: env.nodeName,
      restartPolicy: 'Never',
      dnsPolicy: 'Default',
      terminationGracePeriodSeconds: 0,
      ...(p.imagePullSecrets ? { imagePullSecrets: p.imagePullSecrets.map((name) => ({ name })) } : {}),
      ...(p.serviceAccountName ? { serviceAccountName: p.serviceAccountName } : {}),
      containers: p.containers.map((c) => ({ name: c.name, image: c.image, imagePullPolicy: c.pullPolicy })),
    },
  };
}

export function outcomeOf(state: { waiting?: { reason?: string }; terminated?: object; running?: object } | undefined): ContainerOutcome | undefined | string {
  if (!state) return undefined;
  if (state.terminated || state.running) return 'Running';
  const reason = state.waiting?.reason;
  if (reason === 'ErrImagePull' || reason === 'ImagePullBackOff') return 'ErrImagePull';
  if (reason === 'ErrImageNeverPull') return 'ErrImageNeverPull';
  if (reason === 'InvalidImageName' || reason === 'CreateContainerConfigError' || reason === 'CreateContainerError') return reason;
  return undefined;
}

/** The event that decides a container's image outcome, by what the kubelet wrote. */
export function decisiveEvent(events: PodEvent[]): ContainerRun['event'] {
  const find = (kind: EventKind, test: (e: PodEvent) => boolean) => {
    const e = events.find(test);
    return e ? { kind, reason: e.reason, message: e.message } : undefined;
  };
  return find('present-accessible', (e) => e.reason === 'Pulled' && /already present on machine and can be accessed by the pod/.test(e.message))
    ?? find('pulled', (e) => e.reason === 'Pulled' && /^Successfully pulled image/.test(e.message))
    ?? find('never-pull', (e) => e.reason === 'ErrImageNeverPull')
    ?? find('pull-failed', (e) => e.reason === 'Failed' && /^Failed to pull image/.test(e.message))
    ?? find('present', (e) => e.reason === 'Pulled' && /already present on machine/.test(e.message));
}

/** Creates the pods, waits until every container ran or its image was refused, and reads their events. */
export async function runPods(env: Environment, ns: string, batch: string, plans: PodPlan[], timeoutMs: number): Promise<Map<string, PodRunResult>> {
  const t = target(env);
  await apply(t, plans.map((p) => podManifest(env, ns, batch, p)));
  const outcomes = new Map<string, string>();
  const key = (pod: string, c: string) => `${pod}/${c}`;
  const total = plans.reduce((n, p) => n + p.containers.length, 0);
  const deadline = Date.now() + timeoutMs;
  let last: PodList | undefined;
  while (outcomes.size < total && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    last = await kubectlJson<PodList>(t, ['get', 'pods', '-n', ns, '-l', `${BATCH_LABEL}=${batch}`]).catch(() => last);
    for (const pod of last?.items ?? []) {
      for (const cs of pod.status?.containerStatuses ?? []) {
        const o = outcomeOf(cs.state);
        if (o && !outcomes.has(key(pod.metadata.name, cs.name))) outcomes.set(key(pod.metadata.name, cs.name), o);
      }
    }
  }
  // Events are recorded asynchronously: give the last ones a moment.
  await new Promise((r) => setTimeout(r, 1000));
  const events = await kubectlJson<EventList>(t, ['get', 'events', '-n', ns]).catch(() => ({ items: [] }) as EventList);
  const out = new Map<string, PodRunResult>();
  for (const p of plans) {
    const containers = new Map<string, ContainerRun>();
    const podState = last?.items.find((x) => x.metadata.name === p.name);
    for (const c of p.containers) {
      const mine = events.items
        .filter((e) => e.involvedObject.name === p.name && (e.involvedObject.fieldPath === `spec.containers{${c.name}}` || e.message.includes(`"${c.image}"`)))
        .map((e) => ({ type: e.type, reason: e.reason, message: e.message, ...(e.count ? { count: e.count } : {}) }));
      const waiting = podState?.status?.containerStatuses?.find((x) => x.name === c.name)?.state?.waiting?.reason;
      const ev = decisiveEvent(mine);
      containers.set(c.name, { outcome: outcomes.get(key(p.name, c.name)) ?? `no outcome (${waiting ?? 'no status'})`, ...(ev ? { event: ev } : {}), events: mine });
    }
    out.set(p.name, { containers });
  }
  return out;
}

export async function deletePods(env: Environment, ns: string, batch: string): Promise<void> {
  await kubectl(target(env), ['delete', 'pods', '-n', ns, '-l', `${BATCH_LABEL}=${batch}`, '--grace-period=0', '--force', '--wait=false']).catch(() => {});
}
