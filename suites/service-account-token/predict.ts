// credprov's predictions for the service-account-token suite, without a
// cluster: the service-account-token model (src/model/service-account-token.ts)
// and the version table, driven through each case's planned pods. What the
// cluster decides at run time (the SAs' UIDs, the issuer, the pod's UID, the
// node, whether a captured token has expired) comes in as arguments.
import {
  predictToken,
  ServiceAccountTokenModel,
  type AudienceGrant,
  type PodState,
  type PredictedToken,
  type PluginAnswer,
  type PullPrediction,
  type ServiceAccountState,
} from '../../src/model/service-account-token.ts';
import { grantedAccess, type Prediction } from '../../src/run/kit.ts';
import type { KubeBehaviour } from '../../src/versions/table.ts';
import {
  ANNOTATION_PODS,
  CLAIMS_POD,
  MODEL,
  exchangeAccess,
  labImage,
  repositoryOf,
  requestImage,
  requireServiceAccountPods,
  type PlannedPod,
  type ProviderPlan,
  type ProviderPlans,
} from './plan.ts';
import type { CacheView, PluginView, PullOutcome, RequireServiceAccountView } from './views.ts';

export const SIGNATURE_VERIFIED = 'verified against /openid/v1/jwks';

export interface PredictionInputs {
  /** The kubelet's row of the version table. */
  behaviour: KubeBehaviour;
  /** kube-apiserver's row (NodeRestriction's gate default and wording); the kubelet's when they are the same version. */
  apiServerBehaviour: KubeBehaviour;
  gates: { kubelet?: Record<string, boolean>; apiserver?: Record<string, boolean> };
  grants: AudienceGrant[];
  namespace: string;
  /** The run's service accounts as the API server stored them (UIDs). */
  serviceAccounts: ReadonlyMap<string, ServiceAccountState>;
}

/** One model per provider for the whole run, as the kubelet keeps one cache per provider. */
export class PullPredictor {
  readonly inputs: PredictionInputs;
  private readonly models = new Map<string, ServiceAccountTokenModel>();

  constructor(inputs: PredictionInputs) {
    this.inputs = inputs;
  }

  /** A pod as the model sees it (its UID is its name: only distinct pods matter). */
  podState(name: string, serviceAccount?: string): PodState {
    return {
      namespace: this.inputs.namespace,
      name,
      uid: name,
      ...(serviceAccount ? { serviceAccount: this.serviceAccount(serviceAccount) } : {}),
    };
  }

  serviceAccount(name: string): ServiceAccountState {
    const sa = this.inputs.serviceAccounts.get(name);
    if (!sa) throw new Error(`service account ${name} is not one of the run's`);
    return sa;
  }

  /** Each pull of `ref` by the pod, in order; `registryAccepts`: whether the registry takes the answer's credentials. */
  pulls(
    plan: ProviderPlan,
    pod: string,
    serviceAccount: string | undefined,
    ref: string,
    o: { registryAccepts?: boolean; pulls?: number } = {},
  ): PullPrediction[] {
    let model = this.models.get(plan.name);
    if (!model) {
      const { behaviour, gates, grants } = this.inputs;
      const provider = { name: plan.name, defaultCacheDurationMs: 0, tokenAttributes: plan.tokenAttributes };
      model = new ServiceAccountTokenModel({ provider, behaviour, gates, grants });
      this.models.set(plan.name, model);
    }
    const answer: PluginAnswer = {
      cacheKeyType: 'Image',
      cacheDurationMs: plan.cacheDurationMs,
      password: plan.password,
      registryAccepts: o.registryAccepts ?? true,
    };
    return Array.from({ length: o.pulls ?? 1 }, (_, i) =>
      model.pull(this.podState(pod, serviceAccount), requestImage(ref), answer, i),
    );
  }

  /** The one pull of a planned pod. */
  pull(plan: ProviderPlan, pod: PlannedPod, ref: string, o: { registryAccepts?: boolean } = {}): PullPrediction {
    return this.pulls(plan, pod.name, pod.serviceAccount, ref, o)[0]!;
  }
}

/** Whether the exchange registry lets the SA pull `ref` (its access rules, as its token server applies them). */
export function exchangeAccepts(namespace: string, serviceAccount: string, ref: string): boolean {
  const access = exchangeAccess(namespace)({ namespace, name: serviceAccount });
  return grantedAccess({ access }, [{ type: 'repository', name: repositoryOf(ref), actions: ['pull'] }]).length > 0;
}

export const pluginView = (p: PullPrediction): PluginView => ({
  invoked: p.invoked,
  tokenPresent: p.tokenPresent,
  annotations: p.invoked ? p.annotations : undefined,
  pull: p.pull,
});

export const single = <T>(value: T, because: string, model = MODEL): Prediction<T> => ({ value, model, because });

export function predictTokenClaims(
  predictor: PullPredictor,
  plans: ProviderPlans,
  o: { audience: string; issuer: string; podUid: string; node: { name: string; uid: string } },
): Prediction<{ invoked: boolean; tokenPresent: boolean; pull: PullOutcome; signature: string } & PredictedToken> {
  const pull = predictor.pull(plans.claims, CLAIMS_POD, labImage(plans.claims));
  const serviceAccount = predictor.serviceAccount(CLAIMS_POD.serviceAccount);
  const pod = { ...predictor.podState(CLAIMS_POD.name, CLAIMS_POD.serviceAccount), uid: o.podUid, serviceAccount };
  const token = predictToken({ issuer: o.issuer, audience: o.audience, pod, node: o.node });
  return {
    value: {
      invoked: pull.invoked,
      tokenPresent: pull.tokenPresent,
      pull: pull.pull,
      signature: SIGNATURE_VERIFIED,
      ...token,
    },
    model: `${MODEL} + claims.go`,
    because:
      `${pull.because}; the TokenRequest asks for audience ${o.audience} bound to the pod, expirationSeconds unset ` +
      `(default ${token.lifetimeSeconds}s); the issuer is the discovery document's`,
  };
}

export function predictAnnotations(
  predictor: PullPredictor,
  plans: ProviderPlans,
): Record<keyof typeof ANNOTATION_PODS, Prediction<PluginView>> {
  const ref = labImage(plans.annotations);
  const annotated = predictor.pull(plans.annotations, ANNOTATION_PODS.annotated, ref);
  const missing = predictor.pull(plans.annotations, ANNOTATION_PODS.missingRequired, ref);
  return {
    annotated: single(pluginView(annotated), annotated.because),
    missingRequired: single(pluginView(missing), missing.because),
  };
}

export function predictRequireServiceAccount(
  predictor: PullPredictor,
  plan: ProviderPlan,
  prefix: string,
  withStaticPod: boolean,
): Prediction<RequireServiceAccountView> {
  const pods = requireServiceAccountPods(prefix);
  const ref = labImage(plan);
  const api = predictor.pull(plan, pods.api, ref);
  const staticPod = withStaticPod ? predictor.pulls(plan, pods.staticPod, undefined, ref)[0] : undefined;
  return single(
    { apiPod: pluginView(api), ...(staticPod ? { staticPod: pluginView(staticPod) } : {}) },
    `API pod: ${api.because}${staticPod ? `; static pod: ${staticPod.because}` : ''}`,
  );
}

/** How a cache case names a pod in its prediction and observation. */
export const cachePodKey = (p: PlannedPod): string =>
  `${p.name} (SA ${p.serviceAccount}${p.pulls === 2 ? ', two pulls' : ''})`;

/** Per pod: how many times the plugin runs, and how its last pull ends; because: the model's cache steps only. */
export function predictCache(
  predictor: PullPredictor,
  plan: ProviderPlan,
  pods: PlannedPod[],
): Prediction<Record<string, CacheView>> {
  const ref = labImage(plan);
  const pulls = pods.map(
    (p) => [cachePodKey(p), predictor.pulls(plan, p.name, p.serviceAccount, ref, { pulls: p.pulls ?? 1 })] as const,
  );
  const cacheSteps = (p: PullPrediction) =>
    p.because
      .split('; ')
      .filter((s) => /cache|invoked|stored/.test(s))
      .join(', ');
  return single(
    Object.fromEntries(
      pulls.map(([key, ps]) => [key, { execs: ps.filter((x) => x.invoked).length, pull: ps.at(-1)!.pull }]),
    ),
    pulls.map(([key, ps]) => `${key}: ${ps.map(cacheSteps).join(' | ')}`).join('; '),
  );
}
