// Pods as suites use them: bound straight to the environment's node (the
// `existing` provider's clusters may have no scheduler for it), watched until
// they run to completion or their image pull fails, with their events and
// container log as evidence.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TimeoutError } from '../core/errors.ts';
import { apply, kubectl, kubectlJson } from '../cluster/kubectl.ts';
import type { Environment } from '../cluster/provider.ts';

export interface PodJson {
  metadata: { name: string; namespace: string; uid: string };
  status?: {
    phase?: string;
    containerStatuses?: Array<{
      name: string;
      state?: { waiting?: { reason?: string; message?: string }; terminated?: { exitCode: number; reason?: string }; running?: object };
    }>;
  };
}

export interface PodEvent {
  type: string;
  reason: string;
  message: string;
  count?: number;
}

export type PodOutcome =
  | { kind: 'completed'; exitCode: number; pod: PodJson }
  | { kind: 'pull-failed'; reason: string; message: string; pod: PodJson };

const PULL_FAILURES = ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull'];

const target = (env: Environment) => ({ kubectl: env.kubectl, kubeconfig: env.kubeconfig });

export interface PodOptions {
  name: string;
  image: string;
  namespace?: string;
  pullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  labels?: Record<string, string>;
  imagePullSecrets?: string[];
  serviceAccountName?: string;
}

export async function createPod(env: Environment, o: PodOptions): Promise<void> {
  await apply(target(env), [{
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: o.name, namespace: o.namespace ?? 'default', labels: { 'app.kubernetes.io/managed-by': 'credprov', ...o.labels } },
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
  }]);
}

/** Waits until the pod's container terminated or its image pull failed. */
export async function waitForPodOutcome(env: Environment, name: string, timeoutMs: number, namespace = 'default'): Promise<PodOutcome> {
  const deadline = Date.now() + timeoutMs;
  let last: PodJson | undefined;
  while (Date.now() < deadline) {
    last = await kubectlJson<PodJson>(target(env), ['get', 'pod', name, '-n', namespace]);
    const cs = last.status?.containerStatuses?.[0];
    if (cs?.state?.terminated) return { kind: 'completed', exitCode: cs.state.terminated.exitCode, pod: last };
    const waiting = cs?.state?.waiting;
    if (waiting?.reason && PULL_FAILURES.includes(waiting.reason)) return { kind: 'pull-failed', reason: waiting.reason, message: waiting.message ?? '', pod: last };
    await new Promise((r) => setTimeout(r, 500));
  }
  const waiting = last?.status?.containerStatuses?.[0]?.state?.waiting;
  throw new TimeoutError(`pod ${namespace}/${name} neither completed nor failed its pull within ${Math.round(timeoutMs / 1000)}s (phase ${last?.status?.phase ?? 'unknown'}${waiting?.reason ? `, ${waiting.reason}` : ''})`);
}

export async function podEvents(env: Environment, name: string, namespace = 'default'): Promise<PodEvent[]> {
  const list = await kubectlJson<{ items: Array<{ type: string; reason: string; message: string; count?: number }> }>(target(env), ['get', 'events', '-n', namespace, '--field-selector', `involvedObject.name=${name}`]);
  return list.items.map((e) => ({ type: e.type, reason: e.reason, message: e.message, ...(e.count ? { count: e.count } : {}) }));
}

export async function containerLog(env: Environment, name: string, namespace = 'default'): Promise<string> {
  return kubectl(target(env), ['logs', name, '-n', namespace]);
}

export async function deletePod(env: Environment, name: string, namespace = 'default'): Promise<void> {
  await kubectl(target(env), ['delete', 'pod', name, '-n', namespace, '--ignore-not-found', '--grace-period=0', '--force', '--wait=false']).catch(() => {});
}

/** Lines of a component's log (local provider) that mention any of `needles`: evidence for a failing check. */
export async function logExcerpt(env: Environment, component: string, needles: string[], max = 15): Promise<{ file: string; text: string } | undefined> {
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
