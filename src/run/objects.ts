// Kubernetes objects as suites handle them: applied (server-side, in order),
// read back as the API server keeps them, and an update whose refusal is the
// observation (a field the API server keeps immutable). Pods that run to an
// outcome are pods.ts's; pull secrets and service accounts, pull-secret.ts's.
import {
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
  type V1Pod,
  type V1Secret,
  type V1ServiceAccount,
} from '@kubernetes/client-node';
import { ApiError, kubeApi, type ApiTarget } from '../cluster/api.ts';
import { CredprovError, errorMessage } from '../core/errors.ts';
import { waitFor } from '../core/time.ts';

type Manifest = Record<string, unknown> & { kind?: string };

/** Server-side applies the objects, in order (a namespace before what goes in it); returns them as stored. */
export async function applyObjects(
  env: ApiTarget,
  objects: readonly Manifest[],
): Promise<Array<Record<string, unknown> & { metadata?: { uid?: string } }>> {
  return (await kubeApi(env)).apply(objects as never) as never;
}

export async function readPod(env: ApiTarget, name: string, namespace: string): Promise<V1Pod> {
  return (await kubeApi(env)).core.readNamespacedPod({ name, namespace });
}

export async function readSecret(env: ApiTarget, name: string, namespace: string): Promise<V1Secret> {
  return (await kubeApi(env)).core.readNamespacedSecret({ name, namespace });
}

export async function readServiceAccount(env: ApiTarget, name: string, namespace: string): Promise<V1ServiceAccount> {
  return (await kubeApi(env)).core.readNamespacedServiceAccount({ name, namespace });
}

export async function listServiceAccounts(env: ApiTarget, namespace: string): Promise<V1ServiceAccount[]> {
  return (await (await kubeApi(env)).core.listNamespacedServiceAccount({ namespace })).items;
}

/** Deletes a service account (its tokens then fail TokenReview); a failure is thrown. */
export async function deleteServiceAccount(env: ApiTarget, name: string, namespace: string): Promise<void> {
  await (await kubeApi(env)).core.deleteNamespacedServiceAccount({ name, namespace });
}

export async function readNode(env: ApiTarget, name: string): Promise<V1Node> {
  return (await kubeApi(env)).core.readNode({ name });
}

/** The UID of an object of `kind` once it exists (the controller-manager makes some: a namespace's default ServiceAccount). */
export async function uidOf(
  env: ApiTarget,
  kind: 'Secret' | 'ServiceAccount' | 'ConfigMap',
  name: string,
  namespace: string,
): Promise<string | undefined> {
  const api = await kubeApi(env);
  const read = {
    Secret: () => api.core.readNamespacedSecret({ name, namespace }),
    ServiceAccount: () => api.core.readNamespacedServiceAccount({ name, namespace }),
    ConfigMap: () => api.core.readNamespacedConfigMap({ name, namespace }),
  }[kind];
  return (await read().catch(() => undefined))?.metadata?.uid;
}

/**
 * Waits until every object exists and returns their UIDs, keyed `<Kind>/<name>` (KEP-2535 records name a secret
 * and a service account by UID; the controller-manager makes some, such as a namespace's default ServiceAccount).
 */
export async function uidsOf(
  env: ApiTarget,
  namespace: string,
  objects: Array<{ kind: 'Secret' | 'ServiceAccount' | 'ConfigMap'; name: string }>,
  o: { timeoutMs: number; intervalMs?: number },
): Promise<Record<string, string>> {
  const uids: Record<string, string> = {};
  for (const { kind, name } of objects)
    uids[`${kind}/${name}`] = await waitFor(`${kind} ${namespace}/${name}`, () => uidOf(env, kind, name, namespace), o);
  return uids;
}

export interface UpdateOutcome {
  outcome: 'accepted' | 'refused';
  /** The API server's reason for a refusal (its Status message, the line that says invalid or forbidden); '' when accepted. */
  message: string;
}

/** A JSON merge patch of a pod, whose refusal is an answer (spec fields the API server keeps immutable). */
export async function mergePatchPod(
  env: ApiTarget,
  name: string,
  namespace: string,
  body: object,
): Promise<UpdateOutcome> {
  try {
    await (
      await kubeApi(env)
    ).core.patchNamespacedPod({ name, namespace, body }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    return { outcome: 'accepted', message: '' };
  } catch (err) {
    return { outcome: 'refused', message: refusalOf(err) };
  }
}

/** The API server's reason for refusing a request, in one line. */
export function refusalOf(err: unknown): string {
  const text =
    err instanceof ApiError && err.serverMessage
      ? err.serverMessage
      : err instanceof CredprovError && err.detail
        ? err.detail
        : errorMessage(err);
  const line = text.split('\n').find((l) => /invalid|forbidden/i.test(l)) ?? text.split('\n')[0] ?? '';
  return line.replace(/\s+/g, ' ').trim().slice(0, 400);
}
