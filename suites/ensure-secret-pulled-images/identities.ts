// What the suite's namespace holds for the second pods: the secrets `right`,
// `right-copy` (the same credentials under another name) and `wrong`, the
// service accounts sa-a and sa-b, and a grant that lets nodes request tokens
// for the service-account-mode provider's audience. The model needs their
// UIDs (records name secrets and service accounts by them).
import { kubeApi } from '../../src/cluster/api.ts';
import { allowNodesTokenAudience } from '../../src/cluster/rbac.ts';
import { type Environment, waitFor } from '../../src/run/kit.ts';
import type { PodProvider } from '../../src/model/ensure-secret-pulled.ts';
import type { Identities } from './cells.ts';
import { NAMESPACE_READY_TIMEOUT_MS, READ_INTERVAL_MS, type Credentials } from './plan.ts';

export interface NamespaceContent {
  namespace: string;
  host: string;
  right: Credentials;
  wrong: Credentials;
  providers: PodProvider[];
}

/** Creates the secrets and service accounts in the (existing) namespace and returns what the model knows of them. */
export async function fillNamespace(env: Environment, o: NamespaceContent): Promise<Identities> {
  const api = await kubeApi(env);
  const ns = o.namespace;
  await api.apply([
    dockerSecret(ns, 'right', o.host, o.right),
    dockerSecret(ns, 'right-copy', o.host, o.right),
    dockerSecret(ns, 'wrong', o.host, o.wrong),
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa-a', namespace: ns } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa-b', namespace: ns } },
  ]);
  const read = {
    secret: (name: string) => api.core.readNamespacedSecret({ name, namespace: ns }),
    serviceaccount: (name: string) => api.core.readNamespacedServiceAccount({ name, namespace: ns }),
  };
  const wait = { timeoutMs: NAMESPACE_READY_TIMEOUT_MS, intervalMs: READ_INTERVAL_MS };
  const uid = (kind: keyof typeof read, name: string) =>
    waitFor(`${kind} ${ns}/${name}`, async () => (await read[kind](name).catch(() => undefined))?.metadata?.uid, wait);
  // The root CA comes from the controller-manager, some time after the namespace; a pod's token volume needs it.
  await waitFor(
    `kube-root-ca.crt in ${ns}`,
    () =>
      api.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: ns }).then(
        () => true,
        () => undefined,
      ),
    wait,
  );
  return {
    namespace: ns,
    host: o.host,
    right: o.right,
    wrong: o.wrong,
    providers: o.providers,
    secretUids: {
      right: await uid('secret', 'right'),
      'right-copy': await uid('secret', 'right-copy'),
      wrong: await uid('secret', 'wrong'),
    },
    saUids: {
      default: await uid('serviceaccount', 'default'),
      'sa-a': await uid('serviceaccount', 'sa-a'),
      'sa-b': await uid('serviceaccount', 'sa-b'),
    },
  };
}

/** Lets nodes request tokens for `audience` until the returned function takes the grant away again. */
export async function grantAudience(env: Environment, audience: string, name: string): Promise<() => Promise<void>> {
  await allowNodesTokenAudience(env, audience, { name });
  return async () => {
    const api = await kubeApi(env);
    await api.rbac.deleteClusterRoleBinding({ name }).catch(() => {});
    await api.rbac.deleteClusterRole({ name }).catch(() => {});
  };
}

/** A kubernetes.io/dockerconfigjson secret with one auths entry for `host`. */
export function dockerSecret(namespace: string, name: string, host: string, c: Credentials) {
  const auth = Buffer.from(`${c.username}:${c.password}`).toString('base64');
  const config = { auths: { [host]: { username: c.username, password: c.password, auth } } };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': 'credprov' } },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}
