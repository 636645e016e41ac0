// RBAC a suite grants for the length of a run or a case, taken away again
// after it: nodes allowed to request service-account tokens for a plugin's
// audience (KEP-4412), a group allowed to read one namespace (an exec plugin's
// user, so a 200 proves the credential was accepted). And what the node may
// request, asked as the node (a SubjectAccessReview), for evidence and waits.
import { kubeApi } from '../cluster/api.ts';
import { allowGroupRead, allowNodesTokenAudience, type AudienceGrant, type ReadGrant } from '../cluster/rbac.ts';
import type { Environment } from '../cluster/provider.ts';

export { nodeMayCreateToken, nodeMayRequestAudience, type AudienceGrant, type ReadGrant } from '../cluster/rbac.ts';

interface Cleanup {
  defer(cleanup: () => Promise<void> | void): void;
}

/**
 * Lets every node request tokens for `audience`; the grant is removed by
 * `cleanup` (a suite's or a case's defer), except a namespaced Role, which
 * goes with its namespace. Returns the role's name.
 */
export async function grantNodesAudience(
  env: Pick<Environment, 'kubeconfig'>,
  audience: string,
  grant: AudienceGrant,
  cleanup: Cleanup,
): Promise<string> {
  const name = await allowNodesTokenAudience(env, audience, grant);
  if (!grant.namespace)
    cleanup.defer(async () => {
      const api = await kubeApi(env);
      await api.rbac.deleteClusterRoleBinding({ name }).catch(() => {});
      await api.rbac.deleteClusterRole({ name }).catch(() => {});
    });
  return name;
}

/** Creates `grant.namespace` and lets `grant.group` get and list `grant.resources` in it (a Role that goes with the namespace). */
export const grantGroupRead = (env: Pick<Environment, 'kubeconfig'>, grant: ReadGrant): Promise<void> =>
  allowGroupRead(env, grant);

/** Binds `clusterRole` to `group` cluster-wide, as `name`; the binding is removed by `cleanup`. */
export async function bindClusterRole(
  env: Pick<Environment, 'kubeconfig'>,
  o: { name: string; clusterRole: string; group: string },
  cleanup: Cleanup,
): Promise<void> {
  const api = await kubeApi(env);
  cleanup.defer(async () => {
    await api.rbac.deleteClusterRoleBinding({ name: o.name }).catch(() => {});
  });
  await api.apply([
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: o.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: o.clusterRole },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: o.group }],
    },
  ]);
}

/**
 * Whether the authorizers let `user` (in `groups`) `verb` `resource` in
 * `namespace`, asked by the admin (a SubjectAccessReview, as `kubectl auth
 * can-i --as`): a new grant reaches the RBAC authorizer through an informer,
 * a moment after it is made.
 */
export async function userMay(
  env: Pick<Environment, 'kubeconfig'>,
  o: { user: string; groups: string[]; verb: string; resource: string; namespace: string },
): Promise<boolean> {
  const out = await (
    await kubeApi(env)
  ).authorization.createSubjectAccessReview({
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: o.user,
        groups: o.groups,
        resourceAttributes: { verb: o.verb, resource: o.resource, namespace: o.namespace },
      },
    },
  });
  return !!out.status?.allowed;
}
