import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeKubeApis } from '../cluster/api.ts';
import { json, startFakeApiServer, type FakeApiServer } from '../testing/fake-apiserver.ts';
import { useTempDir } from '../testing/tmp.ts';
import { bindClusterRole, userMay } from './grants.ts';

const tmp = useTempDir('credprov-grants-');
let fake: FakeApiServer;
let env: { kubeconfig: string };

const RBAC = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'rbac.authorization.k8s.io/v1',
  resources: [
    { name: 'clusterrolebindings', namespaced: false, kind: 'ClusterRoleBinding', verbs: ['delete', 'get', 'patch'] },
  ],
};

let allowed = false;
beforeAll(async () => {
  fake = await startFakeApiServer();
  env = { kubeconfig: await fake.writeKubeconfig(tmp()) };
  fake.route = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method === 'GET' && url.pathname === '/apis/rbac.authorization.k8s.io/v1')
      return (json(res, 200, RBAC), true);
    if (req.method === 'DELETE') return (json(res, 200, { kind: 'Status', status: 'Success' }), true);
    if (req.method === 'POST' && url.pathname === '/apis/authorization.k8s.io/v1/subjectaccessreviews')
      return (json(res, 201, { kind: 'SubjectAccessReview', status: { allowed } }), true);
    return false;
  };
});
afterAll(async () => {
  await closeKubeApis();
  await fake.close();
});

describe('bindClusterRole', () => {
  test("applies a binding of the cluster role to the group, and leaves its removal to the caller's cleanup", async () => {
    const cleanups: Array<() => Promise<void> | void> = [];
    await bindClusterRole(
      env,
      { name: 'credprov-view-x', clusterRole: 'view', group: 'g' },
      { defer: (f) => cleanups.push(f) },
    );
    expect(fake.patches.map((p) => [p.path, p.body])).toEqual([
      [
        '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/credprov-view-x',
        expect.objectContaining({
          kind: 'ClusterRoleBinding',
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'g' }],
        }),
      ],
    ]);
    expect(fake.requests.filter((r) => r.startsWith('DELETE'))).toEqual([]);
    expect(cleanups).toHaveLength(1);
    await cleanups[0]!();
    expect(fake.requests.filter((r) => r.startsWith('DELETE'))).toEqual([
      'DELETE /apis/rbac.authorization.k8s.io/v1/clusterrolebindings/credprov-view-x',
    ]);
  });
});

describe('userMay', () => {
  test("the SubjectAccessReview's answer for the user and groups", async () => {
    const can = { user: 'u', groups: ['g'], verb: 'list', resource: 'pods', namespace: 'default' };
    allowed = false;
    expect(await userMay(env, can)).toBe(false);
    allowed = true;
    expect(await userMay(env, can)).toBe(true);
  });
});
