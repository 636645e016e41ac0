// SA-REQUIRE-SA-TRUE and SA-REQUIRE-SA-FALSE: per value of
// requireServiceAccount, an API pod with an SA and a static pod (no SA: its
// mirror pod may not reference one). The static pod needs the kubelet's
// staticPodPath on this host (capability kubeletFiles); without it the check
// compares the API pod only, and says so.
import {
  caseOf,
  judge,
  mirrorPodName,
  observePod,
  removeStaticPod,
  writeStaticPod,
  type Case,
  type Check,
  type ObservedPod,
} from '../../src/run/kit.ts';
import { REQUIRE_SA_FALSE, REQUIRE_SA_TRUE } from './checks.ts';
import type { SuiteFixture } from './fixture.ts';
import { labImage, requireServiceAccountPods, STATIC_POD_TIMEOUT_MS, type ProviderPlan } from './plan.ts';
import { predictRequireServiceAccount } from './predict.ts';
import { podInvocations, seenByPlugin, showPluginView, type RequireServiceAccountView } from './views.ts';

const requireServiceAccountCase = (f: SuiteFixture, check: Check, plan: ProviderPlan, prefix: string): Case =>
  caseOf(check, async (ctx) => {
    const withStaticPod = ctx.can('kubeletFiles');
    const pods = requireServiceAccountPods(prefix);
    const image = labImage(plan);
    const mirror = mirrorPodName(f.env, pods.staticPod);
    f.kubeletLinesOnFailure(ctx, [pods.api.name, ...(withStaticPod ? [mirror] : [])]);
    const prediction = predictRequireServiceAccount(f.predictor, plan, prefix, withStaticPod);
    const runStaticPod = async (): Promise<ObservedPod> => {
      ctx.defer(() => removeStaticPod(f.staticPodDir, pods.staticPod));
      await writeStaticPod(f.env, f.staticPodDir, f.namespace, { name: pods.staticPod, image });
      return observePod(f.env, mirror, f.namespace, STATIC_POD_TIMEOUT_MS);
    };
    const [apiRun, staticRun] = await Promise.all([
      f.runPod(pods.api, image),
      withStaticPod ? runStaticPod() : undefined,
    ]);
    const invocations = await f.invocations(plan);
    // A token names its pod; only the static pod's request has none.
    const staticInvocations = invocations.filter((i) => !i.tokenPresent);
    const observed: RequireServiceAccountView = {
      apiPod: { ...seenByPlugin(podInvocations(invocations, pods.api.name)), pull: apiRun.observed },
      ...(staticRun ? { staticPod: { ...seenByPlugin(staticInvocations), pull: staticRun.observed } } : {}),
    };
    const skipLines = withStaticPod ? await f.kubeletLog([`provider="${plan.name}"`, `${f.namespace}/${mirror}`]) : [];
    return judge(check, {
      prediction,
      observed,
      show: (v) =>
        `API pod (SA ${pods.api.serviceAccount}): ${showPluginView(v.apiPod)}; ` +
        (v.staticPod
          ? `static pod ${mirror}: ${showPluginView(v.staticPod)}`
          : `static pod part not run (provider ${ctx.provider.name} cannot put a manifest into the kubelet's staticPodPath: no kubeletFiles)`),
      evidence: [
        f.eventsEvidence(apiRun),
        ...(staticRun ? [f.eventsEvidence(staticRun)] : []),
        f.invocationEvidence(`invocations of ${plan.name}`, invocations),
        ...f.kubeletLogEvidence(`kubelet log (V5) for the static pod and ${plan.name}`, skipLines),
      ],
    });
  });

export const requireServiceAccountCases = (f: SuiteFixture): Case[] => [
  requireServiceAccountCase(f, REQUIRE_SA_TRUE, f.plans.requiredServiceAccount, 'req'),
  requireServiceAccountCase(f, REQUIRE_SA_FALSE, f.plans.optionalServiceAccount, 'opt'),
];
