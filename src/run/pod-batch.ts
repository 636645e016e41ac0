// Batches of pods, many containers each (a KEP-2535 matrix): created in one
// apply, watched together (one watch on the batch's label, not one per pod:
// 60 pods at once on two cores), their events then watched until each
// container's decisive image event is in, and attributed per container.
import type { CoreV1Event, CoreV1EventList, V1Pod, V1PodList } from '@kubernetes/client-node';
import { kubeApi } from '../cluster/api.ts';
import { watchUntil } from '../cluster/watch.ts';
import type { Environment } from '../cluster/provider.ts';
import { TimeoutError } from '../core/errors.ts';
import type { ContainerOutcome, EventKind } from '../model/ensure-secret-pulled.ts';
import { asPodEvent, type PodEvent } from './pods.ts';

/** Events are recorded asynchronously, a moment after the state they explain: how long to wait for the last ones. */
const EVENTS_SETTLE_MS = 3000;

export const BATCH_LABEL = 'credprov.io/batch';

export interface BatchPod {
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

export interface BatchPodRun {
  containers: Map<string, ContainerRun>;
}

export function podManifest(env: Environment, ns: string, batch: string, p: BatchPod): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: ns,
      labels: { 'app.kubernetes.io/managed-by': 'credprov', [BATCH_LABEL]: batch },
    },
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

export function containerOutcomeOf(
  state: { waiting?: { reason?: string }; terminated?: object; running?: object } | undefined,
): ContainerOutcome | undefined | string {
  if (!state) return undefined;
  if (state.terminated || state.running) return 'Running';
  const reason = state.waiting?.reason;
  if (reason === 'ErrImagePull' || reason === 'ImagePullBackOff') return 'ErrImagePull';
  if (reason === 'ErrImageNeverPull') return 'ErrImageNeverPull';
  if (reason === 'InvalidImageName' || reason === 'CreateContainerConfigError' || reason === 'CreateContainerError')
    return reason;
  return undefined;
}

/** The event that decides a container's image outcome, by what the kubelet wrote. */
export function decisiveEvent(events: PodEvent[]): ContainerRun['event'] {
  const find = (kind: EventKind, test: (e: PodEvent) => boolean) => {
    const e = events.find(test);
    return e ? { kind, reason: e.reason, message: e.message } : undefined;
  };
  return (
    find(
      'present-accessible',
      (e) => e.reason === 'Pulled' && /already present on machine and can be accessed by the pod/.test(e.message),
    ) ??
    find('pulled', (e) => e.reason === 'Pulled' && /^Successfully pulled image/.test(e.message)) ??
    find('never-pull', (e) => e.reason === 'ErrImageNeverPull') ??
    find('pull-failed', (e) => e.reason === 'Failed' && /^Failed to pull image/.test(e.message)) ??
    find('present', (e) => e.reason === 'Pulled' && /already present on machine/.test(e.message))
  );
}

/** Creates the pods, waits until every container ran or its image was refused, and reads their events. */
export async function runPodBatch(
  env: Environment,
  ns: string,
  batch: string,
  plans: BatchPod[],
  timeoutMs: number,
): Promise<Map<string, BatchPodRun>> {
  const api = await kubeApi(env);
  await api.apply(plans.map((p) => podManifest(env, ns, batch, p)));
  const outcomes = new Map<string, string>();
  const pods = new Map<string, V1Pod>();
  const key = (pod: string, c: string) => `${pod}/${c}`;
  const total = plans.reduce((n, p) => n + p.containers.length, 0);
  const labelSelector = `${BATCH_LABEL}=${batch}`;
  const path = (resource: string) => `/api/v1/namespaces/${encodeURIComponent(ns)}/${resource}`;
  // Past the time limit the matrix takes what it has: a container without an outcome is reported as such.
  const untilTimeout = (err: unknown) => {
    if (!(err instanceof TimeoutError)) throw err;
  };
  await watchUntil<V1Pod, true>(
    api,
    {
      what: `pods of batch ${batch} in ${ns}`,
      async list() {
        const l: V1PodList = await api.core.listNamespacedPod({ namespace: ns, labelSelector });
        return { items: l.items, resourceVersion: l.metadata?.resourceVersion };
      },
      path: path('pods'),
      query: { labelSelector },
      decode: (o) => api.decode<V1Pod>(o, 'V1Pod'),
      timeoutMs,
    },
    ({ type, object: pod }) => {
      const name = pod.metadata?.name ?? '';
      if (type === 'DELETED') return undefined;
      pods.set(name, pod);
      for (const cs of pod.status?.containerStatuses ?? []) {
        const o = containerOutcomeOf(cs.state);
        if (o && !outcomes.has(key(name, cs.name))) outcomes.set(key(name, cs.name), o);
      }
      return outcomes.size >= total ? true : undefined;
    },
  ).catch(untilTimeout);

  const events = new Map<string, CoreV1Event>();
  const eventsOf = (p: BatchPod, c: BatchPod['containers'][number]): PodEvent[] =>
    [...events.values()]
      .filter(
        (e) =>
          e.involvedObject.name === p.name &&
          (e.involvedObject.fieldPath === `spec.containers{${c.name}}` || (e.message ?? '').includes(`"${c.image}"`)),
      )
      .map(asPodEvent);
  const settled = () =>
    plans.every((p) =>
      p.containers.every((c) => !outcomes.has(key(p.name, c.name)) || decisiveEvent(eventsOf(p, c)) !== undefined),
    );
  await watchUntil<CoreV1Event, true>(
    api,
    {
      what: `the image events of batch ${batch} in ${ns}`,
      async list() {
        const l: CoreV1EventList = await api.core.listNamespacedEvent({ namespace: ns });
        return { items: l.items, resourceVersion: l.metadata?.resourceVersion };
      },
      path: path('events'),
      decode: (o) => api.decode<CoreV1Event>(o, 'CoreV1Event'),
      timeoutMs: EVENTS_SETTLE_MS,
    },
    ({ type, object: e }) => {
      const id = e.metadata?.uid ?? e.metadata?.name ?? '';
      if (type === 'DELETED') events.delete(id);
      else events.set(id, e);
      return settled() ? true : undefined;
    },
  ).catch(untilTimeout);

  const out = new Map<string, BatchPodRun>();
  for (const p of plans) {
    const containers = new Map<string, ContainerRun>();
    const podState = pods.get(p.name);
    for (const c of p.containers) {
      const mine = eventsOf(p, c);
      const waiting = podState?.status?.containerStatuses?.find((x) => x.name === c.name)?.state?.waiting?.reason;
      const ev = decisiveEvent(mine);
      containers.set(c.name, {
        outcome: outcomes.get(key(p.name, c.name)) ?? `no outcome (${waiting ?? 'no status'})`,
        ...(ev ? { event: ev } : {}),
        events: mine,
      });
    }
    out.set(p.name, { containers });
  }
  return out;
}

/** Deletes the batch's pods at once (grace period 0), without waiting for them to go. */
export async function deletePodBatch(env: Environment, ns: string, batch: string): Promise<void> {
  await kubeApi(env)
    .then((api) =>
      api.core.deleteCollectionNamespacedPod({
        namespace: ns,
        labelSelector: `${BATCH_LABEL}=${batch}`,
        gracePeriodSeconds: 0,
      }),
    )
    .catch(() => {});
}
