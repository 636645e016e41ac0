// RBAC that service-account token mode needs (KEP-4412): nodes may request
// tokens for the plugin's audience only when authorized for the verb
// request-serviceaccounts-token-audience on a resource named after the audience.
import { kubeApi, type ApiTarget } from './api.ts';

export interface AudienceGrant {
  /** Object name for the role and its binding (default derived from the audience). */
  name?: string;
  /** Narrow the grant to these ServiceAccount names (resourceNames). */
  serviceAccounts?: string[];
  /** A Role + RoleBinding in this namespace instead of a ClusterRole + ClusterRoleBinding. */
  namespace?: string;
}

/** Lets every node (group system:nodes) request tokens for `audience`; returns the role's name. */
export async function allowNodesTokenAudience(t: ApiTarget, audience: string, opts: AudienceGrant = {}): Promise<string> {
  const name = opts.name ?? `credprov-audience-${audience.replace(/[^a-z0-9.-]/gi, '-').toLowerCase()}`.slice(0, 63);
  const scoped = opts.namespace ? { namespace: opts.namespace } : {};
  const [role, binding] = opts.namespace ? ['Role', 'RoleBinding'] : ['ClusterRole', 'ClusterRoleBinding'];
  await (await kubeApi(t)).apply([
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: role, metadata: { name, ...scoped },
      rules: [{ apiGroups: [''], resources: [audience], verbs: ['request-serviceaccounts-token-audience'], ...(opts.serviceAccounts ? { resourceNames: opts.serviceAccounts } : {}) }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: binding, metadata: { name, ...scoped },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: role, name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
    },
  ]);
  return name;
}
