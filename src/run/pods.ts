// Pods as suites use them: bound straight to the environment's node (the
// `existing` provider's clusters may have no scheduler for it), watched (not
// polled) until they run to completion or their image pull fails, with their
// events and container log as evidence.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CoreV1Event, CoreV1EventList, V1Pod, V1PodList } from '@kubernetes/client-node';
import { ApiError, kubeApi, type ApiTarget } from '../cluster/api.ts';
import { watchUntil } from '../cluster/watch.ts';
import type { Environment } from '../cluster/provider.ts';

export interface PodEvent {
  type: string;
  reason: string;
  message: string;
  count?: number;
}

export type PodOutcome =
  | { kind: 'completed'; exitCode: number; pod: V1Pod }
  | { kind: 'pull-failed'; reason: string; message: string; pod: V1Pod };

export const PULL_FAILURES = ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull'];

export interface PodOptions {
  name: string;
  image: string;
  namespace?: string;
  pullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  labels?: Record<string, string>;
  imagePullSecrets?: string[];
  serviceAccountName?: string;
}

/** Creates (server-side applies) the pod; returns it as the API server stored it. */
export async function createPod(env: Environment, o: PodOptions): Promise<V1Pod> {
  const api = await kubeApi(env);
  const [pod] = await api.apply<V1Pod>([
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: o.name,
        namespace: o.namespace ?? 'default',
        labels: { 'app.kubernetes.io/managed-by': 'credprov', ...o.labels },
      },
      spec: {
        nodeName: env.nodeName,
        restartPolicy: 'Never',
        // The node has no cluster DNS; Default avoids a MissingClusterDNS warning in the evidence.
        dnsPolicy: 'Default',
        terminationGracePeriodSeconds: 0,
        ...(o.imagePullSecrets ? { imagePullSecrets: o.imagePullSecrets.map((name) => ({ name })) } : {}),
        ...(o.serviceAccountName ? { serviceAccountName: o.serviceAccountName } : {}),
        containers: [{ name: 'main', image: o.image, imagePullPolicy: o.pullPolicy ?? 'Always' }],
      },
    },
  ]);
  return pod!;
}

/** What a pod's state says of its first container: terminated, or its image pull failed; undefined while neither. */
export function podOutcome(pod: V1Pod): PodOutcome | undefined {
  const cs = pod.status?.containerStatuses?.[0];
  if (cs?.state?.terminated) return { kind: 'completed', exitCode: cs.state.terminated.exitCode, pod };
  const waiting = cs?.state?.waiting;
  if (waiting?.reason && PULL_FAILURES.includes(waiting.reason))
    return { kind: 'pull-failed', reason: waiting.reason, message: waiting.message ?? '', pod };
  return undefined;
}

export interface WatchPodOptions {
  /** Wait for a pod that is not there yet, or is deleted and made again (a mirror pod), instead of failing with NotFound. */
  mayNotExistYet?: boolean;
  /** The timeout's message, given the last state seen. */
  timeoutMessage?: (last: V1Pod | undefined) => string;
}

/**
 * Watches one pod (list, then watch from there) and hands each state to
 * `step` until it returns a value. A pod deleted meanwhile ends the wait with
 * an ApiError (404); the time limit ends it with a TimeoutError.
 */
export async function watchPod<R>(
  t: ApiTarget,
  name: string,
  namespace: string,
  timeoutMs: number,
  step: (pod: V1Pod) => R | undefined,
  o: WatchPodOptions = {},
): Promise<R> {
  const api = await kubeApi(t);
  const fieldSelector = `metadata.name=${name}`;
  let last: V1Pod | undefined;
  return watchUntil<V1Pod, R>(
    api,
    {
      what: `pod ${namespace}/${name}`,
      async list() {
        const l: V1PodList = await api.core.listNamespacedPod({ namespace, fieldSelector });
        if (l.items.length === 0 && !o.mayNotExistYet)
          throw new ApiError(`pod ${namespace}/${name} not found`, { status: 404, statusReason: 'NotFound' });
        return { items: l.items, resourceVersion: l.metadata?.resourceVersion };
      },
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
      query: { fieldSelector },
      decode: (object) => api.decode<V1Pod>(object, 'V1Pod'),
      timeoutMs,
      timeoutMessage: () =>
        o.timeoutMessage?.(last) ?? `pod ${namespace}/${name}: no outcome within ${Math.round(timeoutMs / 1000)}s`,
    },
    (change) => {
      if (change.type === 'DELETED') {
        if (o.mayNotExistYet) return undefined;
        throw new ApiError(`pod ${namespace}/${name} was deleted while the harness waited for it`, {
          status: 404,
          statusReason: 'NotFound',
        });
      }
      last = change.object;
      return step(change.object);
    },
  );
}

/** Waits until the pod's container terminated or its image pull failed. */
export async function waitForPodOutcome(
  env: ApiTarget,
  name: string,
  timeoutMs: number,
  namespace = 'default',
): Promise<PodOutcome> {
  return watchPod(env, name, namespace, timeoutMs, podOutcome, {
    timeoutMessage: (last) => {
      const waiting = last?.status?.containerStatuses?.[0]?.state?.waiting;
      return `pod ${namespace}/${name} neither completed nor failed its pull within ${Math.round(timeoutMs / 1000)}s (phase ${last?.status?.phase ?? 'unknown'}${waiting?.reason ? `, ${waiting.reason}` : ''})`;
    },
  });
}

/** An Event as evidence: what the kubelet said, without the bookkeeping. */
export const asPodEvent = (e: CoreV1Event): PodEvent => ({
  type: e.type ?? '',
  reason: e.reason ?? '',
  message: e.message ?? '',
  ...(e.count ? { count: e.count } : {}),
});

export async function podEvents(env: ApiTarget, name: string, namespace = 'default'): Promise<PodEvent[]> {
  return (await podEventObjects(env, name, namespace)).items.map(asPodEvent);
}

/** When the kubelet first emitted `reason` for the pod (ms, the API's second precision); undefined while it has not. */
export async function podEventAt(
  env: ApiTarget,
  name: string,
  namespace: string,
  reason: string,
): Promise<number | undefined> {
  const list = await podEventObjects(env, name, namespace).catch(() => undefined);
  const event = list?.items.find((e) => e.reason === reason);
  const at = (event?.firstTimestamp ?? event?.eventTime)?.getTime();
  return at === undefined || Number.isNaN(at) ? undefined : at;
}

async function podEventObjects(t: ApiTarget, name: string, namespace: string): Promise<CoreV1EventList> {
  const api = await kubeApi(t);
  return api.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
}

/**
 * Watches the events of a pod (list, then watch) until `enough` says the
 * events so far settle what the caller waits for; returns them. A repeated
 * event is one Event whose count grows, so it keeps its place.
 */
export async function waitForPodEvents(
  t: ApiTarget,
  name: string,
  namespace: string,
  timeoutMs: number,
  enough: (events: PodEvent[]) => boolean,
  what: string,
): Promise<PodEvent[]> {
  const api = await kubeApi(t);
  const fieldSelector = `involvedObject.name=${name}`;
  const seen = new Map<string, PodEvent>();
  return watchUntil<CoreV1Event, PodEvent[]>(
    api,
    {
      what: `events of pod ${namespace}/${name} ${what}`,
      async list() {
        const l = await podEventObjects(t, name, namespace);
        return { items: l.items, resourceVersion: l.metadata?.resourceVersion };
      },
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
      query: { fieldSelector },
      decode: (object) => api.decode<CoreV1Event>(object, 'CoreV1Event'),
      timeoutMs,
    },
    (change) => {
      const key = change.object.metadata?.uid ?? change.object.metadata?.name ?? String(seen.size);
      if (change.type === 'DELETED') seen.delete(key);
      else seen.set(key, asPodEvent(change.object));
      const events = [...seen.values()];
      return enough(events) ? events : undefined;
    },
  );
}

export async function containerLog(env: ApiTarget, name: string, namespace = 'default'): Promise<string> {
  const api = await kubeApi(env);
  return api.core.readNamespacedPodLog({ name, namespace });
}

/** Deletes the pod at once (grace period 0) without waiting for it to go; a pod already gone is fine. */
export async function deletePod(env: ApiTarget, name: string, namespace = 'default'): Promise<void> {
  try {
    const api = await kubeApi(env);
    await api.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
  } catch {
    // Gone already, or the environment is: a cleanup never fails a check.
  }
}

/** Lines of a component's log (local provider) that mention any of `needles`: evidence for a failing check. */
export async function logExcerpt(
  env: Environment,
  component: string,
  needles: string[],
  max = 15,
): Promise<{ file: string; text: string } | undefined> {
  const file = join(env.logsDir, `${component}.log`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n').filter((l) => needles.some((n) => l.includes(n)));
  return lines.length === 0 ? undefined : { file, text: lines.slice(-max).join('\n') };
}
