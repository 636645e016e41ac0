// Predictions for who may get and use a service-account token: node audience
// grants, the token as a password, and a real token exchange with revocation
// (the service-account model, src/model/service-account-token.ts). Pure.
import { exchangeAccepts, PullPredictor, single } from './predict.ts';
import { predictTokenValidity, type PullPrediction } from '../../src/model/service-account-token.ts';
import type { Prediction } from '../../src/run/kit.ts';
import {
  AUDIENCE_PODS,
  EXCHANGE_PODS,
  MODEL,
  TOKEN_AS_PASSWORD_PODS,
  exchangeImage,
  labImage,
  repositoryOf,
  type PlannedPod,
  type ProviderPlan,
  type ProviderPlans,
} from './plan.ts';
import type { AudienceView, ExchangeView, TokenAsPasswordView, TokenVerdict } from './views.ts';

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
