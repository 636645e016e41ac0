// Predictions for who may get and use a service-account token: node audience
// grants, the token as a password, and a real token exchange with revocation
// (the service-account model, src/model/service-account-token.ts). Pure.
import { exchangeAccepts, pluginView, PullPredictor, single } from './predict.ts';
import { nodeMayRequestToken, type BoundPod, type NodeTokenDecision } from '../../src/model/node-token-request.ts';
import { predictTokenValidity, type PullPrediction } from '../../src/model/service-account-token.ts';
import type { Prediction } from '../../src/run/kit.ts';
import {
  AUDIENCE_PODS,
  EXCHANGE_PODS,
  MODEL,
  OTHER_NODE_PODS,
  TOKEN_AS_PASSWORD_PODS,
  exchangeImage,
  labImage,
  repositoryOf,
  type PlannedPod,
  type ProviderPlan,
  type ProviderPlans,
} from './plan.ts';
import type {
  AudienceView,
  ExchangeView,
  NodeTokenView,
  OtherNodeView,
  TokenAsPasswordView,
  TokenVerdict,
} from './views.ts';

export function predictAudiences(
  predictor: PullPredictor,
  plans: ProviderPlans,
): { denied: Prediction<AudienceView>; resourceNames: Prediction<Record<string, AudienceView>> } {
  const view = (p: PullPrediction): AudienceView => ({ tokenDenied: p.tokenDenied, invoked: p.invoked, pull: p.pull });
  const ungranted = predictor.pull(plans.ungrantedAudience, AUDIENCE_PODS.ungranted, labImage(plans.ungrantedAudience));
  const named = predictor.pull(plans.narrowedAudience, AUDIENCE_PODS.named, labImage(plans.narrowedAudience));
  const notNamed = predictor.pull(plans.narrowedAudience, AUDIENCE_PODS.notNamed, labImage(plans.narrowedAudience));
  return {
    denied: single(view(ungranted), ungranted.because),
    resourceNames: single(
      { [AUDIENCE_PODS.named.name]: view(named), [AUDIENCE_PODS.notNamed.name]: view(notNamed) },
      `${AUDIENCE_PODS.named.name}: ${named.because}; ${AUDIENCE_PODS.notNamed.name}: ${notNamed.because}`,
    ),
  };
}

export function predictTokenAsPassword(
  predictor: PullPredictor,
  plans: ProviderPlans,
): Prediction<{ serviceAccountCacheType: TokenAsPasswordView; tokenCacheType: TokenAsPasswordView }> {
  const { namespace, behaviour } = predictor.inputs;
  const one = (plan: ProviderPlan, pod: PlannedPod) => {
    const ref = exchangeImage(plan, pod.team!);
    return predictor.pull(plan, pod, ref, { registryAccepts: exchangeAccepts(namespace, pod.serviceAccount, ref) });
  };
  const view = (p: PullPrediction): TokenAsPasswordView => ({
    invoked: p.invoked,
    responseRefused: p.credentials === 'refused-token-as-password',
    pull: p.pull,
  });
  const echo = one(plans.tokenEcho, TOKEN_AS_PASSWORD_PODS.serviceAccountCache);
  const exchange = one(plans.exchange, TOKEN_AS_PASSWORD_PODS.tokenCache);
  return {
    value: { serviceAccountCacheType: view(echo), tokenCacheType: view(exchange) },
    model: `${MODEL} (rejectsTokenAsPassword: ${behaviour.rejectsTokenAsPassword} for 1.${behaviour.minor})`,
    because: `ServiceAccount: ${echo.because}; Token: ${exchange.because}`,
  };
}

/** How the exchange case names a pod: `xa-own (SA team-a → team-a/app)`. */
export const exchangePodKey = (plan: ProviderPlan, p: PlannedPod & { team: string }): string =>
  `${p.name} (SA ${p.serviceAccount} → ${repositoryOf(exchangeImage(plan, p.team))})`;

export function predictExchangeAccess(
  predictor: PullPredictor,
  plan: ProviderPlan,
): Prediction<Record<string, ExchangeView>> {
  const pulls = Object.values(EXCHANGE_PODS).map((p) => {
    const ref = exchangeImage(plan, p.team);
    const registryAccepts = exchangeAccepts(predictor.inputs.namespace, p.serviceAccount, ref);
    return [exchangePodKey(plan, p), predictor.pull(plan, p, ref, { registryAccepts })] as const;
  });
  return {
    value: Object.fromEntries(
      pulls.map(([key, p]) => [
        key,
        {
          invoked: p.invoked,
          tokenValidated: p.invoked && p.credentials === 'used',
          pull: p.pull,
        },
      ]),
    ),
    model: `${MODEL} + the exchange's access rules (team-X may pull team-X/*)`,
    because: pulls.map(([key, p]) => `${key}: ${p.because}`).join('; '),
  };
}

export const REVOCATION_STEPS = {
  podExists: 'xa-own token, pod exists',
  podDeleted: 'xa-own token, pod deleted',
  serviceAccountDeleted: 'xc-own token, SA team-c deleted',
} as const;

/** The exchange's verdicts on xa-own's token before and after its pod is deleted, and on xc-own's after SA team-c is. */
export function predictRevocation(expired: {
  ownToken: boolean;
  teamCToken: boolean;
}): Prediction<Record<string, TokenVerdict>> {
  const predicted = {
    [REVOCATION_STEPS.podExists]: predictTokenValidity({
      expired: expired.ownToken,
      podExists: true,
      serviceAccountExists: true,
    }),
    [REVOCATION_STEPS.podDeleted]: predictTokenValidity({
      expired: expired.ownToken,
      podExists: false,
      serviceAccountExists: true,
    }),
    [REVOCATION_STEPS.serviceAccountDeleted]: predictTokenValidity({
      expired: expired.teamCToken,
      podExists: true,
      serviceAccountExists: false,
    }),
  };
  return {
    value: Object.fromEntries(
      Object.entries(predicted).map(([k, v]) => [k, { signature: v.signature, tokenReview: v.tokenReview }]),
    ),
    model: 'service-account-token model (predictTokenValidity: claims.go validator)',
    because: Object.entries(predicted)
      .map(([k, v]) => `${k}: ${v.because}`)
      .join('; '),
  };
}

/**
 * SA-TOKEN-OTHER-NODE: the plugin on node A during the real pull (the kubelet model), then the API
 * server's answers to the same TokenRequest (the provider's audience, bound to the pod on node A) from
 * node A's kubelet, from node B's, and from node B's again once a pod of the same SA is bound to B
 * (nodeMayRequestToken). Pod UIDs are their names here: the rules only compare them.
 */
export function predictOtherNode(
  predictor: PullPredictor,
  plan: ProviderPlan,
  nodes: { a: string; b: string },
): Prediction<OtherNodeView> {
  const { own, sibling } = OTHER_NODE_PODS;
  const { namespace, apiServerBehaviour, gates, grants } = predictor.inputs;
  const pull = predictor.pull(plan, own, labImage(plan));
  const bound = (p: PlannedPod, nodeName: string): BoundPod => ({
    namespace,
    name: p.name,
    uid: p.name,
    serviceAccount: p.serviceAccount,
    nodeName,
  });
  const audienceRestriction =
    gates.apiserver?.ServiceAccountNodeAudienceRestriction ??
    apiServerBehaviour.gateDefaults.ServiceAccountNodeAudienceRestriction;
  const ask = (node: string, pods: BoundPod[]): NodeTokenDecision =>
    nodeMayRequestToken({
      request: {
        node,
        namespace,
        serviceAccount: own.serviceAccount,
        boundPod: { name: own.name, uid: own.name },
        audiences: [plan.tokenAttributes.serviceAccountTokenAudience],
      },
      pods,
      grants,
      audienceRestriction,
      audienceRefusal: apiServerBehaviour.audienceRefusalWording,
    });
  const view = (d: NodeTokenDecision): NodeTokenView =>
    d.issued
      ? { status: d.status, boundTo: `${own.name} on ${nodes.a}` }
      : { status: d.status, refusedBy: d.refusedBy, says: d.says };
  const onA = bound(own, nodes.a);
  const decisions = {
    nodeA: ask(nodes.a, [onA]),
    nodeB: ask(nodes.b, [onA]),
    nodeBWithSibling: ask(nodes.b, [onA, bound(sibling, nodes.b)]),
  };
  return {
    value: {
      pluginOnNodeA: pluginView(pull),
      nodeA: view(decisions.nodeA),
      nodeB: view(decisions.nodeB),
      nodeBWithSibling: view(decisions.nodeBWithSibling),
    },
    model: `${MODEL} + the API server's node rules (src/model/node-token-request.ts: node_authorizer.go, noderestriction)`,
    because:
      `plugin on ${nodes.a}: ${pull.because}; ${nodes.a} asks: ${decisions.nodeA.because}; ` +
      `${nodes.b} asks: ${decisions.nodeB.because}; ${nodes.b} asks once ${sibling.name} is bound to it: ${decisions.nodeBWithSibling.because}`,
  };
}
