// SA-TOKEN-OTHER-NODE (capability secondNode): a pod of SA two-nodes runs on
// node A and pulls through a KEP-4412 provider (the plugin gets its token).
// Then the TokenRequest the kubelet makes for that pod's plugin is made with
// each kubelet's own client certificate (provider.kubeletKubeconfig): node A's
// is issued; node B's is refused by the node authorizer (no pod of the SA on
// B), and, once a pod of the same SA is bound to B, by NodeRestriction (the
// pod the token is bound to is on A). The answers' status and message are the
// observation; the prediction is the service-account model's.
import {
  createSaPod,
  deletePod,
  judge,
  nodeMayCreateToken,
  poll,
  requestPodToken,
  whoAmI,
  twoNodesOf,
  type Case,
  type CaseContext,
  type CheckResult,
  type Evidence,
  type Judgement,
  type PodTokenAnswer,
  type Prediction,
} from '../../src/run/kit.ts';
import { TOKEN_OTHER_NODE } from './checks.ts';
import type { SuiteFixture } from './fixture.ts';
import { GRANTS_TIMEOUT_MS, labImage, OTHER_NODE_PODS } from './plan.ts';
import { predictOtherNode } from './predict-access.ts';
import { otherNodeAgrees, podInvocations, seenByPlugin, showOtherNode, type OtherNodeView } from './views.ts';

/** The pod bound to node B never needs to run: a binding is what links its SA to B. */
const SIBLING_IMAGE = 'registry.k8s.io/pause:3.10.1';

async function kubeletKubeconfig(ctx: CaseContext, node: string): Promise<string> {
  if (!ctx.provider.kubeletKubeconfig)
    throw new Error(
      `provider ${ctx.provider.name} has capability secondNode but no kubeletKubeconfig() to hand out node ${node}'s kubelet credentials`,
    );
  return ctx.provider.kubeletKubeconfig(ctx.environment, node);
}

/** The verdict: the model's prediction against the answers (the case's, and the unit test's against a recorded run). */
export function judgeOtherNode(
  prediction: Prediction<OtherNodeView>,
  observed: OtherNodeView,
  o: Pick<Judgement<OtherNodeView>, 'startedAt' | 'invalidBecause' | 'onDisagree' | 'evidence'> = {},
): CheckResult {
  return judge(TOKEN_OTHER_NODE, {
    prediction,
    observed,
    agree: otherNodeAgrees,
    show: showOtherNode,
    actor: 'the kubelet and the API server',
    ...o,
  });
}

export const otherNodeCase = (f: SuiteFixture): Case => ({
  checks: [TOKEN_OTHER_NODE],
  needs: ['secondNode'],
  async run(ctx) {
    const [a, b] = twoNodesOf(f.env);
    const plan = f.plans.requiredServiceAccount;
    const { own, sibling } = OTHER_NODE_PODS;
    const prediction = predictOtherNode(f.predictor, plan, { a, b });
    f.kubeletLinesOnFailure(ctx, [own.name]);

    const kubeconfigs = { [a]: await kubeletKubeconfig(ctx, a), [b]: await kubeletKubeconfig(ctx, b) };
    // Each kubeconfig must be that kubelet's own identity, or the answers say nothing about node rules.
    const identities = await Promise.all([a, b].map(async (n) => ({ node: n, ...(await whoAmI(kubeconfigs[n]!)) })));
    const wrong = identities.filter(
      (i) => i.username !== `system:node:${i.node}` || !i.groups.includes('system:nodes'),
    );

    ctx.defer(() => deletePod(f.env, own.name, f.namespace));
    const ran = await f.runPod(own, labImage(plan));
    const ask = (node: string): Promise<PodTokenAnswer> =>
      requestPodToken(
        kubeconfigs[node]!,
        {
          namespace: f.namespace,
          serviceAccount: own.serviceAccount,
          pod: { name: own.name, uid: ran.uid ?? '' },
          audience: plan.tokenAttributes.serviceAccountTokenAudience,
        },
        ctx.redactor,
      );
    const nodeA = await ask(a);
    const nodeB = await ask(b);

    ctx.defer(() => deletePod(f.env, sibling.name, f.namespace));
    await createSaPod(f.env, f.namespace, {
      name: sibling.name,
      serviceAccount: sibling.serviceAccount,
      image: f.env.sandboxImage ?? SIBLING_IMAGE,
      pullPolicy: 'Never',
      nodeName: b,
    });
    // The node authorizer learns of the binding through an informer: wait until it links the SA to B
    // (a SubjectAccessReview, which stops before admission), so the next answer is NodeRestriction's to give.
    const linked = await poll(
      async () =>
        (await nodeMayCreateToken(f.env, b, f.namespace, sibling.serviceAccount)).allowed ? true : undefined,
      { timeoutMs: GRANTS_TIMEOUT_MS, intervalMs: 500, clock: ctx.clock },
    );
    const nodeBWithSibling = await ask(b);

    const invocations = podInvocations(await f.invocations(plan), own.name);
    const observed: OtherNodeView = {
      pluginOnNodeA: { ...seenByPlugin(invocations), pull: ran.observed },
      nodeA: nodeA.view,
      nodeB: nodeB.view,
      nodeBWithSibling: nodeBWithSibling.view,
    };
    const said = (label: string, x: PodTokenAnswer): Evidence[] =>
      x.message
        ? [{ kind: 'text', label: `the API server's answer to ${label} (HTTP ${x.view.status})`, text: x.message }]
        : [];
    return judgeOtherNode(prediction, observed, {
      invalidBecause: wrong.length
        ? `the kubelet kubeconfig of ${wrong.map((w) => `${w.node} authenticates as ${w.username} (${w.groups.join(', ')})`).join('; ')}, not as that node's kubelet`
        : ran.uid
          ? undefined
          : `pod ${f.namespace}/${own.name} has no UID to bind the token requests to`,
      onDisagree: linked
        ? undefined
        : `the node authorizer did not link SA ${sibling.serviceAccount} to ${b} within ${GRANTS_TIMEOUT_MS / 1000}s`,
      evidence: [
        f.eventsEvidence(ran),
        f.invocationEvidence(`invocations of ${plan.name}`, invocations),
        {
          kind: 'data',
          label: "the kubelets' identities (SelfSubjectReview with each kubelet kubeconfig)",
          data: identities,
        },
        ...said(`${a}'s request`, nodeA),
        ...said(`${b}'s request`, nodeB),
        ...said(`${b}'s request with ${sibling.name} bound to it`, nodeBWithSibling),
      ],
    });
  },
});
