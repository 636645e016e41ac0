// SA-ANNOTATIONS-PASSED and SA-ANNOTATION-REQUIRED-MISSING: one provider with
// a required and two optional annotation keys, a service account that has the
// required one and one that lacks it.
import { deletePod, judge, type Case, type Evidence } from '../../src/run/kit.ts';
import { ANNOTATIONS_PASSED, REQUIRED_ANNOTATION_MISSING } from './checks.ts';
import type { SuiteFixture } from './fixture.ts';
import { ANNOTATION_PODS, labImage } from './plan.ts';
import { predictAnnotations } from './predict.ts';
import { podInvocations, seenByPlugin, showPluginView } from './views.ts';

export const annotationsCase = (f: SuiteFixture): Case => ({
  checks: [ANNOTATIONS_PASSED, REQUIRED_ANNOTATION_MISSING],
  async run(ctx) {
    const plan = f.plans.annotations;
    const image = labImage(plan);
    const { annotated, missingRequired } = ANNOTATION_PODS;
    f.kubeletLinesOnFailure(ctx, [annotated.name, missingRequired.name]);
    const predicted = predictAnnotations(f.predictor, f.plans);
    const [annotatedRun, missingRun] = await Promise.all([
      f.runPod(annotated, image),
      f.runPod(missingRequired, image),
    ]);
    await deletePod(f.env, missingRequired.name, f.namespace);
    const invocations = await f.invocations(plan);
    const annotatedInvocations = podInvocations(invocations, annotated.name);
    const otherInvocations = invocations.filter((i) => i.tokenPod !== annotated.name);
    const skipLines = await f.kubeletLog([`${f.namespace}/${missingRequired.name}`, 'required annotation']);
    const annotationsOf = (sa: string): Evidence => ({
      kind: 'data',
      label: `service account ${f.namespace}/${sa} annotations`,
      data: f.predictor.serviceAccount(sa).annotations,
    });
    return [
      judge(ANNOTATIONS_PASSED, {
        prediction: predicted.annotated,
        observed: { ...seenByPlugin(annotatedInvocations), pull: annotatedRun.observed },
        show: showPluginView,
        evidence: [
          f.eventsEvidence(annotatedRun),
          f.invocationEvidence(`invocations of ${plan.name} for ${annotated.name}`, annotatedInvocations),
          annotationsOf(annotated.serviceAccount),
          { kind: 'data', label: 'tokenAttributes', data: plan.tokenAttributes },
        ],
      }),
      judge(REQUIRED_ANNOTATION_MISSING, {
        prediction: predicted.missingRequired,
        observed: { ...seenByPlugin(otherInvocations), pull: missingRun.observed },
        show: showPluginView,
        evidence: [
          f.eventsEvidence(missingRun),
          f.invocationEvidence(`invocations of ${plan.name} other than ${annotated.name}'s`, otherInvocations),
          annotationsOf(missingRequired.serviceAccount),
          ...f.kubeletLogEvidence('kubelet log (V5): why the plugin was skipped', skipLines),
        ],
      }),
    ];
  },
});
