// SA-AUDIENCE-DENIED and SA-AUDIENCE-RESOURCENAMES: NodeRestriction and RBAC
// on the kubelet's TokenRequest. The API server's refusal is seen in the
// kubelet's log (capability kubeletFiles), the only place it is reported.
import { audienceRefusalWords } from '../../src/model/node-token-request.ts';
import {
  deletePod,
  judge,
  klogErr,
  type Case,
  type Evidence,
  type FakeInvocation,
  type ObservedPod,
} from '../../src/run/kit.ts';
import { AUDIENCE_DENIED, AUDIENCE_RESOURCE_NAMES } from './checks.ts';
import type { SuiteFixture } from './fixture.ts';
import { AUDIENCE_PODS, labImage } from './plan.ts';
import { predictAudiences } from './predict-access.ts';
import { podInvocations, showAudience, type AudienceView } from './views.ts';

/** The kubelet's log lines about a refused token request for the pod, and the API server's words in the last one. */
interface Denial {
  lines: string[];
  text?: string | undefined;
}

export const audienceCase = (f: SuiteFixture): Case => ({
  checks: [AUDIENCE_DENIED, AUDIENCE_RESOURCE_NAMES],
  needs: ['kubeletFiles'],
  async run(ctx) {
    const { ungranted, named, notNamed } = AUDIENCE_PODS;
    const ungrantedPlan = f.plans.ungrantedAudience;
    const narrowedPlan = f.plans.narrowedAudience;
    f.kubeletLinesOnFailure(ctx, [ungranted.name, named.name, notNamed.name]);
    const predicted = predictAudiences(f.predictor, f.plans);
    const grants = await f.grantEvidence([
      [f.audiences.ungranted, ungranted.serviceAccount],
      [f.audiences.narrowed, named.serviceAccount],
      [f.audiences.narrowed, notNamed.serviceAccount],
    ]);
    const [ungrantedRun, namedRun, notNamedRun] = await Promise.all([
      f.runPod(ungranted, labImage(ungrantedPlan)),
      f.runPod(named, labImage(narrowedPlan)),
      f.runPod(notNamed, labImage(narrowedPlan)),
    ]);
    await Promise.all([ungranted, notNamed].map((p) => deletePod(f.env, p.name, f.namespace)));
    // The refusal as the API server's version words it (the version table): other words are a disagreement.
    const refusal = audienceRefusalWords(f.predictor.inputs.apiServerBehaviour.audienceRefusalWording);
    const denialOf = async (pod: string): Promise<Denial> => {
      const lines = await f.kubeletLog([`${f.namespace}/${pod}`, refusal], 2);
      return { lines, text: lines.length ? klogErr(lines.at(-1)!) : undefined };
    };
    const [ungrantedDenial, namedDenial, notNamedDenial] = await Promise.all([
      denialOf(ungranted.name),
      denialOf(named.name),
      denialOf(notNamed.name),
    ]);
    const ungrantedInvocations = await f.invocations(ungrantedPlan);
    const narrowedInvocations = await f.invocations(narrowedPlan);
    const observed = (denial: Denial, invocations: FakeInvocation[], ran: ObservedPod): AudienceView => ({
      tokenDenied: !!denial.text,
      invoked: invocations.length > 0,
      pull: ran.observed,
    });
    const denialEvidence = (pod: string, denial: Denial): Evidence[] => [
      ...(denial.text ? [{ kind: 'text' as const, label: `the API server's denial (${pod})`, text: denial.text }] : []),
      ...f.kubeletLogEvidence(`kubelet log: ${pod}`, denial.lines),
    ];
    return [
      judge(AUDIENCE_DENIED, {
        prediction: predicted.denied,
        observed: observed(ungrantedDenial, ungrantedInvocations, ungrantedRun),
        show: showAudience,
        note: ungrantedDenial.text && `the API server said: ${ungrantedDenial.text}`,
        evidence: [
          f.eventsEvidence(ungrantedRun),
          f.invocationEvidence(`invocations of ${ungrantedPlan.name}`, ungrantedInvocations),
          ...denialEvidence(ungranted.name, ungrantedDenial),
          grants,
        ],
      }),
      judge(AUDIENCE_RESOURCE_NAMES, {
        prediction: predicted.resourceNames,
        observed: {
          [named.name]: observed(namedDenial, podInvocations(narrowedInvocations, named.name), namedRun),
          [notNamed.name]: observed(notNamedDenial, podInvocations(narrowedInvocations, notNamed.name), notNamedRun),
        },
        show: (v) =>
          `${named.name}: ${showAudience(v[named.name]!)}; ${notNamed.name}: ${showAudience(v[notNamed.name]!)}`,
        note: notNamedDenial.text && `the API server said: ${notNamedDenial.text}`,
        evidence: [
          f.eventsEvidence(namedRun),
          f.eventsEvidence(notNamedRun),
          f.invocationEvidence(`invocations of ${narrowedPlan.name}`, narrowedInvocations),
          ...denialEvidence(notNamed.name, notNamedDenial),
          grants,
        ],
      }),
    ];
  },
});
