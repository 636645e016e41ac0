// What the suite's namespace holds for the second pods: the secrets `right`,
// `right-copy` (the same credentials under another name) and `wrong`, and the
// service accounts sa-a and sa-b. The model needs their UIDs (records name
// secrets and service accounts by them).
import type { PodProvider } from '../../src/model/ensure-secret-pulled.ts';
import { applyObjects, pullSecret, serviceAccount, uidsOf, type Environment } from '../../src/run/kit.ts';
import type { Identities } from './plan-cells.ts';
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
  const ns = o.namespace;
  const secret = (name: string, login: Credentials) => pullSecret({ name, namespace: ns, auths: { [o.host]: login } });
  await applyObjects(env, [
    secret('right', o.right),
    secret('right-copy', o.right),
    secret('wrong', o.wrong),
    serviceAccount(ns, 'sa-a'),
    serviceAccount(ns, 'sa-b'),
  ]);
  // kube-root-ca.crt comes from the controller-manager, some time after the namespace; a pod's token volume needs it.
  const uid = await uidsOf(
    env,
    ns,
    [
      ...['right', 'right-copy', 'wrong'].map((name) => ({ kind: 'Secret' as const, name })),
      ...['default', 'sa-a', 'sa-b'].map((name) => ({ kind: 'ServiceAccount' as const, name })),
      { kind: 'ConfigMap', name: 'kube-root-ca.crt' },
    ],
    { timeoutMs: NAMESPACE_READY_TIMEOUT_MS, intervalMs: READ_INTERVAL_MS },
  );
  return {
    namespace: ns,
    host: o.host,
    right: o.right,
    wrong: o.wrong,
    providers: o.providers,
    secretUids: { right: uid['Secret/right']!, 'right-copy': uid['Secret/right-copy']!, wrong: uid['Secret/wrong']! },
    saUids: {
      default: uid['ServiceAccount/default']!,
      'sa-a': uid['ServiceAccount/sa-a']!,
      'sa-b': uid['ServiceAccount/sa-b']!,
    },
  };
}
