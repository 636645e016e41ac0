// SA-CACHE-SERVICEACCOUNT and SA-CACHE-TOKEN: the same pulls under the two
// cacheTypes. A first pod pulls twice (one token), then a second pod of the
// same SA pulls (a new token) and, for cacheType ServiceAccount, a pod of
// another SA.
import { judge, type Case, type FakeInvocation, type ObservedPod } from '../../src/run/kit.ts';
import { CACHE_SERVICE_ACCOUNT, CACHE_TOKEN } from './checks.ts';
import type { SuiteFixture } from './fixture.ts';
import { CACHE_PODS, labImage, type PlannedPod, type ProviderPlan } from './plan.ts';
import { cachePodKey, predictCache } from './predict.ts';
import { podInvocations, showCache, type CacheView } from './views.ts';

export const cacheCase = (f: SuiteFixture): Case => ({
  checks: [CACHE_SERVICE_ACCOUNT, CACHE_TOKEN],
  async run(ctx) {
    const serviceAccountPlan = f.plans.cacheByServiceAccount;
    const tokenPlan = f.plans.cacheByToken;
    f.kubeletLinesOnFailure(
      ctx,
      [...CACHE_PODS.serviceAccount, ...CACHE_PODS.token].map((p) => p.name),
    );
    const serviceAccountPrediction = predictCache(f.predictor, serviceAccountPlan, CACHE_PODS.serviceAccount);
    const tokenPrediction = predictCache(f.predictor, tokenPlan, CACHE_PODS.token);
    const runPod = (plan: ProviderPlan, p: PlannedPod) => f.runPod(p, labImage(plan));
    // The first pod's pulls fill the cache before the others pull; the others then run side by side.
    const inOrder = async (plan: ProviderPlan, [first, ...rest]: PlannedPod[]): Promise<ObservedPod[]> => {
      const firstRun = await runPod(plan, first!);
      return [firstRun, ...(await Promise.all(rest.map((p) => runPod(plan, p))))];
    };
    const [serviceAccountRuns, tokenRuns] = await Promise.all([
      inOrder(serviceAccountPlan, CACHE_PODS.serviceAccount),
      inOrder(tokenPlan, CACHE_PODS.token),
    ]);
    const serviceAccountInvocations = await f.invocations(serviceAccountPlan);
    const tokenInvocations = await f.invocations(tokenPlan);
    const observed = (
      pods: PlannedPod[],
      runs: ObservedPod[],
      invocations: FakeInvocation[],
    ): Record<string, CacheView> =>
      Object.fromEntries(
        pods.map((p, i) => [
          cachePodKey(p),
          { execs: podInvocations(invocations, p.name).length, pull: runs[i]!.observed },
        ]),
      );
    return [
      judge(CACHE_SERVICE_ACCOUNT, {
        prediction: serviceAccountPrediction,
        observed: observed(CACHE_PODS.serviceAccount, serviceAccountRuns, serviceAccountInvocations),
        show: showCache,
        evidence: [
          ...serviceAccountRuns.map(f.eventsEvidence),
          f.invocationEvidence(`invocations of ${serviceAccountPlan.name}`, serviceAccountInvocations),
        ],
      }),
      judge(CACHE_TOKEN, {
        prediction: tokenPrediction,
        observed: observed(CACHE_PODS.token, tokenRuns, tokenInvocations),
        show: showCache,
        evidence: [
          ...tokenRuns.map(f.eventsEvidence),
          f.invocationEvidence(
            `invocations of ${tokenPlan.name} (two pods, distinct tokens: see tokenSha256)`,
            tokenInvocations,
          ),
        ],
      }),
    ];
  },
});
