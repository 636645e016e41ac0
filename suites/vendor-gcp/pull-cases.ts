// The vendor-gcp cases under GKE's own entry (the gcr flow, no KUBE_SIDECAR_*
// env): pulls from gcr.io and Artifact Registry, the plugin's answer, no cache
// at all, and an image no entry matches.
import { caseOf, judge, type Case, type CaseContext, type CheckResult, type GcpLab } from '../../src/run/kit.ts';
import { ANSWER, NO_CACHE, PULL_AR, PULL_GCR, UNMATCHED } from './checks.ts';
import { IMAGES, providerConfig, type PlannedImage } from './plan.ts';
import { predictAnswer, predictPulls, type AnswerView } from './predict.ts';
import { pullIn, showViews, viewOf, windowEvidence, type GcpWindow } from './session.ts';

const UP = { up: true };

/** One pod of `image`, judged against the prediction of its pull. */
async function onePull(ctx: CaseContext, lab: GcpLab, image: PlannedImage): Promise<{ r: CheckResult; w: GcpWindow }> {
  const prediction = predictPulls(providerConfig(), [{ img: image, now: ctx.clock.now(), state: UP }]);
  const w = await pullIn(ctx, lab, image);
  const r = judge(ctx.check, {
    prediction,
    observed: [viewOf(w)],
    show: showViews,
    evidence: windowEvidence(lab, [w]),
    actor: 'the kubelet, auth-provider-gcp and the registry',
    startedAt: ctx.startedAt,
  });
  return { r, w };
}

/** GCP-PULL-GCR, and GCP-ANSWER read from the same exec. */
export function gcrCase(lab: GcpLab): Case {
  return {
    checks: [PULL_GCR, ANSWER],
    async run(ctx) {
      const { r, w } = await onePull(ctx, lab, IMAGES.gcr);
      const exec = w.execs[0];
      const none: AnswerView = {
        exitCode: -1,
        cacheKeyType: '',
        cacheDuration: '',
        users: {},
        passwordIsMetadataToken: false,
      };
      const answer = judge(ANSWER, {
        prediction: predictAnswer('gke'),
        observed: exec?.response ? answerView(w) : none,
        show: (v) =>
          `exit ${v.exitCode}, ${v.cacheKeyType || '?'} ${v.cacheDuration || '?'}, auth ` +
          `${
            Object.entries(v.users)
              .map(([k, u]) => `${k}=${u}`)
              .join(' ') || 'none'
          }, ` +
          `passwords ${v.passwordIsMetadataToken ? '=' : '≠'} the metadata server's token`,
        evidence: windowEvidence(lab, [w]),
        actor: 'auth-provider-gcp',
        ...(exec?.response
          ? {}
          : { invalidBecause: `the gcr.io pod's window holds no finished exec (${w.execs.length} execs)` }),
        startedAt: ctx.startedAt,
      });
      return [r, answer];
    },
  };
}

/** What the recorded exec answered, its passwords checked against the token the metadata server handed out meanwhile. */
function answerView(w: GcpWindow): AnswerView {
  const exec = w.execs[0]!;
  const handed = w.metadata.flatMap((m) =>
    m.token ? [m.token.fingerprint.slice('sha256:'.length, 'sha256:'.length + 12)] : [],
  );
  const hashes = Object.values(exec.response?.passwordSha256 ?? {});
  return {
    exitCode: exec.exitCode ?? -1,
    cacheKeyType: exec.response?.cacheKeyType ?? '',
    cacheDuration: exec.response?.cacheDuration ?? '',
    users: exec.response?.auth ?? {},
    passwordIsMetadataToken: hashes.length > 0 && hashes.every((h) => handed.includes(h)),
  };
}

export function arCase(lab: GcpLab): Case {
  return caseOf(PULL_AR, async (ctx) => (await onePull(ctx, lab, IMAGES.ar)).r);
}

export function unmatchedCase(lab: GcpLab): Case {
  return caseOf(UNMATCHED, async (ctx) => (await onePull(ctx, lab, IMAGES.unmatched)).r);
}

/** The same image twice under GKE's entry: 0s means the kubelet asks the plugin every time. */
export function noCacheCase(lab: GcpLab): Case {
  return caseOf(NO_CACHE, async (ctx) => {
    const t0 = ctx.clock.now();
    const prediction = predictPulls(providerConfig(), [
      { img: IMAGES.gcrRegional, now: t0, state: UP },
      { img: IMAGES.gcrRegional, now: t0 + 5_000, state: UP },
    ]);
    const first = await pullIn(ctx, lab, IMAGES.gcrRegional);
    const second = await pullIn(ctx, lab, IMAGES.gcrRegional);
    return judge(NO_CACHE, {
      prediction,
      observed: [viewOf(first), viewOf(second)],
      show: showViews,
      evidence: windowEvidence(lab, [first, second]),
      actor: 'the kubelet, auth-provider-gcp and the registry',
      startedAt: ctx.startedAt,
    });
  });
}
