// Registry logins as the kubelet reads them: a docker config.json (`auths`
// keyed by registry host, each with its login and the base64 `auth`), and the
// kubernetes.io/dockerconfigjson Secret that carries one to a pod's
// imagePullSecrets. The kubelet hashes the login itself (username, password),
// not these bytes, so every suite's secrets read the same to KEP-2535.
import type { Environment } from '../cluster/provider.ts';
import { kubeApi } from '../cluster/api.ts';

export interface Login {
  username: string;
  password: string;
}

export interface DockerConfigJson {
  auths: Record<string, { username: string; password: string; auth: string }>;
}

/** A docker config.json for `auths` (registry host → login). */
export function dockerConfigJson(auths: Record<string, Login>): DockerConfigJson {
  return {
    auths: Object.fromEntries(
      Object.entries(auths).map(([host, l]) => [
        host,
        {
          username: l.username,
          password: l.password,
          auth: Buffer.from(`${l.username}:${l.password}`).toString('base64'),
        },
      ]),
    ),
  };
}

export interface PullSecretSpec {
  name: string;
  namespace: string;
  /** Registry host (as the image names it) → login; `{}` is a placeholder secret with no auths. */
  auths: Record<string, Login>;
}

/** The kubernetes.io/dockerconfigjson Secret for `spec`, labelled as credprov's. */
export function pullSecret(spec: PullSecretSpec) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: { name: spec.name, namespace: spec.namespace, labels: { 'app.kubernetes.io/managed-by': 'credprov' } },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(dockerConfigJson(spec.auths))).toString('base64') },
  };
}

/** A ServiceAccount, with `pullSecrets` as its imagePullSecrets. */
export function serviceAccount(namespace: string, name: string, pullSecrets: readonly string[] = []) {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name, namespace },
    ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets.map((s) => ({ name: s })) } : {}),
  };
}

/**
 * Creates (applies) the pull secret and returns its UID (KEP-2535 records name
 * a secret by it). `cleanup` removes it again, for a secret outside a case's
 * own namespace (which goes with the namespace).
 */
export async function createPullSecret(
  env: Pick<Environment, 'kubeconfig'>,
  spec: PullSecretSpec,
  cleanup?: { defer(fn: () => Promise<void>): void },
): Promise<{ name: string; namespace: string; uid: string }> {
  const api = await kubeApi(env);
  const [stored] = await api.apply([pullSecret(spec)]);
  cleanup?.defer(async () => {
    await api.core.deleteNamespacedSecret({ name: spec.name, namespace: spec.namespace }).catch(() => undefined);
  });
  return { name: spec.name, namespace: spec.namespace, uid: stored?.metadata?.uid ?? '' };
}
