// RBAC the suites need. Service-account token mode (KEP-4412): nodes may request
// tokens for the plugin's audience only when authorized for the verb
// request-serviceaccounts-token-audience on a resource named after the audience.
// Exec plugin suites: the plugin's user may read one namespace's objects, so a
// 200 proves the credential was accepted and anything else is not granted.
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
export async function allowNodesTokenAudience(
  t: ApiTarget,
  audience: string,
  opts: AudienceGrant = {},
): Promise<string> {
  const name = opts.name ?? `credprov-audience-${audience.replace(/[^a-z0-9.-]/gi, '-').toLowerCase()}`.slice(0, 63);
  const scoped = opts.namespace ? { namespace: opts.namespace } : {};
  const [role, binding] = opts.namespace ? ['Role', 'RoleBinding'] : ['ClusterRole', 'ClusterRoleBinding'];
  await (
    await kubeApi(t)
  ).apply([
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: role,
      metadata: { name, ...scoped },
      rules: [
        {
          apiGroups: [''],
          resources: [audience],
          verbs: ['request-serviceaccounts-token-audience'],
          ...(opts.serviceAccounts ? { resourceNames: opts.serviceAccounts } : {}),
        },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: binding,
      metadata: { name, ...scoped },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: role, name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
    },
  ]);
  return name;
}

export interface ReadGrant {
  /** The group allowed (e.g. the group a token webhook or a client certificate's O puts users in). */
  group: string;
  namespace: string;
  /** Core-group resources it may get and list there, nothing else. */
  resources: string[];
  /** Object name for the role and its binding. */
  name: string;
}

/** Creates `namespace` and lets `group` get and list `resources` in it: exactly what a read-only client probe needs. */
export async function allowGroupRead(t: ApiTarget, g: ReadGrant): Promise<void> {
  await (
    await kubeApi(t)
  ).apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: g.namespace } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: g.name, namespace: g.namespace },
      rules: [{ apiGroups: [''], resources: g.resources, verbs: ['get', 'list'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: g.name, namespace: g.namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: g.name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g.group }],
    },
  ]);
}

interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  name: string;
  namespace: string;
}

/** What the authorizers (the node authorizer, RBAC) answer a request of node `node`'s kubelet, asked by the admin. */
async function askAsNode(
  t: ApiTarget,
  node: string,
  resourceAttributes: ResourceAttributes,
): Promise<{ allowed: boolean; reason?: string }> {
  const out = await (
    await kubeApi(t)
  ).authorization.createSubjectAccessReview({
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: `system:node:${node}`, groups: ['system:nodes', 'system:authenticated'], resourceAttributes },
    },
  });
  return { allowed: !!out.status?.allowed, ...(out.status?.reason ? { reason: out.status.reason } : {}) };
}

/** The SubjectAccessReview NodeRestriction sends for a node's token request (KEP-4412). */
export function nodeMayRequestAudience(
  t: ApiTarget,
  node: string,
  audience: string,
  namespace: string,
  serviceAccount: string,
): Promise<{ allowed: boolean; reason?: string }> {
  return askAsNode(t, node, {
    verb: 'request-serviceaccounts-token-audience',
    group: '',
    resource: audience,
    name: serviceAccount,
    namespace,
  });
}

/** Whether the authorizers let the node create a token for the SA: the node authorizer's graph has a pod of it on the node (or RBAC allows). */
export function nodeMayCreateToken(
  t: ApiTarget,
  node: string,
  namespace: string,
  serviceAccount: string,
): Promise<{ allowed: boolean; reason?: string }> {
  return askAsNode(t, node, {
    verb: 'create',
    group: '',
    resource: 'serviceaccounts',
    subresource: 'token',
    name: serviceAccount,
    namespace,
  });
}
