// CACHE-SINGLEFLIGHT: several pods of one image created together while the
// plugin takes its delay to answer share one exec, even with cacheDuration 0s
// (nothing is stored for later pulls) and serializeImagePulls: true.
import { caseOf, judge, type Case, type Check, type FakeInvocation } from '../../src/run/kit.ts';
import { failedMessage, providerCase, type CacheLab } from './lab.ts';
import { image, REPOSITORIES, SINGLEFLIGHT_PODS, type Plan } from './plan.ts';
import { predictSingleflight } from './predict.ts';

export const singleflightCase = (lab: CacheLab, check: Check, p: Plan): Case =>
  caseOf(check, async (ctx) => {
    const provider = await providerCase(ctx, lab, p);
    const one = image(p, 'a', REPOSITORIES.one);
    const prediction = predictSingleflight(p, one.request, SINGLEFLIGHT_PODS);
    const before = (await provider.execs()).length;
    const names = Array.from({ length: SINGLEFLIGHT_PODS }, (_, i) => `${p.name}-${lab.id}-together-${i + 1}`);
    // Create them all first (one apply each, in parallel), then wait: their lookups must overlap the exec.
    const runs = await Promise.all(names.map((name) => provider.pod(one.ref, name)));
    const execs = (await provider.execs()).slice(before);
    const failed = runs.filter((r) => r.pull === 'failure');
    const why = failed.map((r) => `${r.name}: ${failedMessage(r)}`).join('; ');
    const failures = `${failed.length} of the pods failed to pull with the shared answer: ${why}`;
    return judge(check, {
      prediction,
      observed: execs.length,
      show: (n) => `${n} exec${n === 1 ? '' : 's'} for ${SINGLEFLIGHT_PODS} pods of ${one.request} created together`,
      evidence: await provider.evidence(runs),
      problems: failed.length > 0 ? [failures] : [],
      onDisagree: howExecsRan(execs),
    });
  });

/** Why there was not one exec: none, overlapping ones (no singleflight), or one after another (the lookups never overlapped). */
function howExecsRan(execs: FakeInvocation[]): string {
  if (execs.length <= 1) return 'no exec at all';
  const spans = execs.map((i) => ({ start: Date.parse(i.time) - i.durationMs, end: Date.parse(i.time) }));
  const overlapping = spans.some((a, i) => spans.some((b, j) => i < j && a.start < b.end && b.start < a.end));
  return overlapping
    ? 'the execs overlapped in time: no singleflight'
    : 'the execs ran one after another: the lookups did not overlap (serialized, or pods started too far apart)';
}
