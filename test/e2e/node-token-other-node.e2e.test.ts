// SA-TOKEN-OTHER-NODE's observation code on a real kube-apiserver (Node,RBAC
// and NodeRestriction) and the local provider's two nodes: the first node's
// own kubelet credentials (provider.kubeletKubeconfig) get a token for a pod
// bound to it; the second node's kubelet credentials are refused for that pod,
// by the node authorizer and then, once a pod of the same SA runs on the second
// node (its own kubelet runs it), by NodeRestriction. An identity of a node
// that does not exist (a client certificate for system:node:<phantom> signed
// with the cluster CA, capability clusterCA) is refused the same two ways. Each
// answer is compared with the model (src/model/node-token-request.ts).
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { issueClientCertificate } from '../../src/core/client-cert.ts';
import { applyDefaults } from '../../src/api/spec/defaults.ts';
import { kubeApi } from '../../src/cluster/api.ts';
import { localProvider } from '../../src/cluster/local/index.ts';
import { SANDBOX_IMAGE_REF } from '../../src/cluster/local/sandbox-image.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { allowNodesTokenAudience, nodeMayCreateToken } from '../../src/cluster/rbac.ts';
import { silentProgress } from '../../src/core/progress.ts';
import { Redactor } from '../../src/core/redact.ts';
import { nodeMayRequestToken, type BoundPod, type NodeTokenDecision } from '../../src/model/node-token-request.ts';
import { clusterCAOf, createSaPod, poll, requestPodToken, whoAmI, type PodTokenAnswer } from '../../src/run/kit.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { nodeTokenAgrees, type NodeTokenView } from '../../suites/service-account-token/views.ts';

const ENV_NAME = e2eEnvName('othernode');
const PHANTOM = 'credprov-phantom-b';
const NS = 'default';
const SA = 'two-nodes';
const AUDIENCE = 'credprov-other-node';
const provider = localProvider();
const available = await provider.isAvailable();
const it = testIf(
  all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }),
);

let env: Environment | undefined;
let dir: string | undefined;
let podUid = '';
const redactor = new Redactor();
const answers: Record<string, PodTokenAnswer> = {};

async function setup(): Promise<Environment> {
  if (env) return env;
  const t0 = Date.now();
  env = await provider.up(applyDefaults({ name: ENV_NAME }), silentProgress);
  console.log(`local environment up in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  dir = await mkdtemp(join(tmpdir(), 'credprov-othernode-'));
  await (
    await kubeApi(env)
  ).apply([{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: NS } }]);
  await allowNodesTokenAudience(env, AUDIENCE);
  const pod = await createSaPod(env, NS, {
    name: 'own',
    serviceAccount: SA,
    image: SANDBOX_IMAGE_REF,
    pullPolicy: 'Never',
  });
  podUid = pod.metadata!.uid!;
  return env;
}

/** A kubeconfig whose client certificate, signed with the cluster CA, says system:node:<node> in group system:nodes. */
async function phantomKubeconfig(e: Environment): Promise<string> {
  const ca = clusterCAOf(e);
  const cert = issueClientCertificate({
    commonName: `system:node:${PHANTOM}`,
    organization: 'system:nodes',
    issuer: { certPem: readFileSync(ca.certFile, 'utf8'), keyPem: readFileSync(ca.keyFile, 'utf8') },
  });
  const admin = (await kubeApi(e)).server;
  const file = join(dir!, 'phantom.kubeconfig');
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  await writeFile(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'c', cluster: { server: admin, 'certificate-authority-data': b64(readFileSync(ca.certFile, 'utf8')) } },
      ],
      users: [
        { name: 'u', user: { 'client-certificate-data': b64(cert.certPem), 'client-key-data': b64(cert.keyPem) } },
      ],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
    { mode: 0o600 },
  );
  return file;
}

const ask = (kubeconfig: string) =>
  requestPodToken(
    kubeconfig,
    { namespace: NS, serviceAccount: SA, pod: { name: 'own', uid: podUid }, audience: AUDIENCE },
    redactor,
  );

/** The model's answer, as the suite's view of it. */
function predicted(node: string, pods: BoundPod[]): { view: NodeTokenView; decision: NodeTokenDecision } {
  const decision = nodeMayRequestToken({
    request: { node, namespace: NS, serviceAccount: SA, boundPod: { name: 'own', uid: 'own' }, audiences: [AUDIENCE] },
    pods,
    grants: [{ audience: AUDIENCE }],
    audienceRestriction: true,
    audienceRefusal: behaviourFor(env!.kubeVersion).audienceRefusalWording,
  });
  const view: NodeTokenView = decision.issued
    ? { status: decision.status, boundTo: `own on ${pods[0]!.nodeName}` }
    : { status: decision.status, refusedBy: decision.refusedBy, says: decision.says };
  return { view, decision };
}

describe('a pod-bound TokenRequest as the node and as another node (the observation of SA-TOKEN-OTHER-NODE)', () => {
  afterAll(async () => {
    console.log(JSON.stringify(answers, null, 2));
    await provider.down(ENV_NAME);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 120_000);

  const own = (e: Environment): BoundPod => ({
    namespace: NS,
    name: 'own',
    uid: 'own',
    serviceAccount: SA,
    nodeName: e.nodeName,
  });

  it("OTHER-NODE-A: the node's own kubelet kubeconfig is system:node:<node> and is issued a token bound to the pod and node", async () => {
    const e = await setup();
    const kubeconfig = await provider.kubeletKubeconfig!(e, e.nodeName);
    expect(await whoAmI(kubeconfig)).toEqual({
      username: `system:node:${e.nodeName}`,
      groups: expect.arrayContaining(['system:nodes']) as unknown as string[],
    });
    // RBAC reaches NodeRestriction through an informer: the grant may take a moment.
    const t0 = Date.now();
    const answer =
      (await poll(
        async () => {
          const a = await ask(kubeconfig);
          return a.view.status === 201 ? a : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 250 },
      )) ?? (await ask(kubeconfig));
    answers.nodeA = answer;
    console.log(`node A's request answered in ${Date.now() - t0} ms`);
    const p = predicted(e.nodeName, [own(e)]);
    expect({ observed: answer.view, agrees: nodeTokenAgrees(p.view, answer.view) }).toEqual({
      observed: { status: 201, boundTo: `own on ${e.nodeName}` },
      agrees: true,
    });
    await expect(provider.kubeletKubeconfig!(e, PHANTOM)).rejects.toThrow(
      `there is no kubelet of node ${PHANTOM} to authenticate as`,
    );
  }, 240_000);

  it("OTHER-NODE-SECOND: the second node's own kubelet is refused by the node authorizer, then, with a pod of the SA running on it, by NodeRestriction", async () => {
    const e = await setup();
    expect(provider.capabilities(e).secondNode).toBe(true);
    const b = e.nodes?.[1] ?? '';
    expect(e.nodes).toEqual([e.nodeName, `${e.nodeName}-b`]);
    const kubeconfig = await provider.kubeletKubeconfig!(e, b);
    expect(await whoAmI(kubeconfig)).toEqual({
      username: `system:node:${b}`,
      groups: expect.arrayContaining(['system:nodes']) as unknown as string[],
    });
    answers.second = await ask(kubeconfig);
    expect(answers.second.view).toMatchObject({ status: 403, refusedBy: 'node authorizer' });
    expect(nodeTokenAgrees(predicted(b, [own(e)]).view, answers.second.view)).toBe(true);

    await createSaPod(e, NS, {
      name: 'on-second',
      serviceAccount: SA,
      image: e.sandboxImage ?? SANDBOX_IMAGE_REF,
      pullPolicy: 'Never',
      nodeName: b,
    });
    // The second node's kubelet runs it from its own containerd: a node, not only a binding.
    const api = await kubeApi(e);
    const running = await poll(
      async () => {
        const pod = await api.core.readNamespacedPod({ name: 'on-second', namespace: NS });
        return pod.status?.phase === 'Running' ? pod : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect({ phase: running?.status?.phase, node: running?.spec?.nodeName }).toEqual({ phase: 'Running', node: b });
    const linked = await poll(async () => ((await nodeMayCreateToken(e, b, NS, SA)).allowed ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    expect(linked).toBe(true);
    answers.secondWithPod = await ask(kubeconfig);
    const onSecond: BoundPod = { ...own(e), name: 'on-second', uid: 'on-second', nodeName: b };
    expect(answers.secondWithPod.view).toMatchObject({ status: 403, refusedBy: 'NodeRestriction' });
    expect(nodeTokenAgrees(predicted(b, [own(e), onSecond]).view, answers.secondWithPod.view)).toBe(true);
  }, 240_000);

  it('OTHER-NODE-B: a CA-signed identity of another node is refused by the node authorizer, then by NodeRestriction', async () => {
    const e = await setup();
    const kubeconfig = await phantomKubeconfig(e);
    expect((await whoAmI(kubeconfig)).username).toBe(`system:node:${PHANTOM}`);
    answers.nodeB = await ask(kubeconfig);
    const p = predicted(PHANTOM, [own(e)]);
    expect(answers.nodeB.view).toMatchObject({ status: 403, refusedBy: 'node authorizer' });
    expect(nodeTokenAgrees(p.view, answers.nodeB.view)).toBe(true);

    await createSaPod(e, NS, {
      name: 'sibling',
      serviceAccount: SA,
      image: SANDBOX_IMAGE_REF,
      pullPolicy: 'Never',
      nodeName: PHANTOM,
    });
    const t0 = Date.now();
    const linked = await poll(async () => ((await nodeMayCreateToken(e, PHANTOM, NS, SA)).allowed ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    console.log(`node authorizer linked the SA to ${PHANTOM} after ${Date.now() - t0} ms`);
    expect(linked).toBe(true);
    answers.nodeBWithSibling = await ask(kubeconfig);
    const sibling: BoundPod = { ...own(e), name: 'sibling', uid: 'sibling', nodeName: PHANTOM };
    const q = predicted(PHANTOM, [own(e), sibling]);
    expect(answers.nodeBWithSibling.view).toMatchObject({ status: 403, refusedBy: 'NodeRestriction' });
    expect(nodeTokenAgrees(q.view, answers.nodeBWithSibling.view)).toBe(true);
  }, 240_000);
});
