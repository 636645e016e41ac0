// ECR-TOKEN-REFRESH, in two parts: two pulls now (the first execs, the second
// hits the cache), then, after the SA cases have used the wait, a third pull
// once the plugin's cacheDuration has passed (an exec, a new token, and the
// registry's password rotated with it).
import { REFRESH } from './checks.ts';
import { IMAGES, PROVIDER, REGION } from './plan.ts';
import { predictRefresh, refreshExecs, thirdPullAtMs } from './predict.ts';
import { execsIn, pullShown, showExec, type Session, type Window } from './session.ts';
import { agrees, caseOf, judge, parseGoDuration, sleepUntil, type Case } from '../../src/run/kit.ts';

export type RefreshStart =
  | { ok: true; r1: Window; r2: Window; t0: number; durationMs: number; cacheDuration: string }
  | { ok: false; error: unknown };

/** The first two pulls; a failure is kept for the case to report, so the SA cases still run. */
export async function startRefresh(s: Session): Promise<RefreshStart> {
  try {
    const r1 = await s.pod('refresh-1', IMAGES.refresh.ref);
    const exec = r1.execs.find((i) => i.provider === PROVIDER.static);
    const cacheDuration = exec?.response?.cacheDuration;
    const durationMs = cacheDuration ? parseGoDuration(cacheDuration) : undefined;
    if (!exec || exec.endMs === undefined || !cacheDuration || durationMs === undefined || r1.run.pull !== 'success') {
      const execs = r1.execs.map(showExec).join(', ') || 'no exec';
      throw new Error(
        `the first pull of ${IMAGES.refresh.ref} did not exec the plugin and succeed (${execs}; ${pullShown(r1.run)})`,
      );
    }
    const r2 = await s.pod('refresh-2', IMAGES.refresh.ref);
    return { ok: true, r1, r2, t0: exec.endMs, durationMs, cacheDuration };
  } catch (error) {
    return { ok: false, error };
  }
}

export function refreshCase(s: Session, start: RefreshStart): Case {
  return caseOf(REFRESH, async () => {
    if (!start.ok) throw start.error;
    const { r1, r2, t0, durationMs, cacheDuration } = start;
    const prediction = predictRefresh(IMAGES.refresh.request, cacheDuration, r2.doneAt - t0);
    await sleepUntil(t0 + thirdPullAtMs(durationMs));
    const r3 = await s.pod('refresh-3', IMAGES.refresh.ref);
    const windows = [r1, r2, r3];
    const ecrTokens = windows
      .flatMap((w) => w.aws)
      .filter((r) => r.service === 'ecr' && r.region === REGION.refresh && r.status === 200);
    // R2's lookup must have been inside the entry's life for the "hit" to be the prediction; else the schedule slipped.
    const replay = refreshExecs(IMAGES.refresh.request, durationMs, [0, r2.createdAt - t0, r3.createdAt - t0]).map(
      (d) => (d.invoked ? 1 : 0),
    );
    const observed = {
      execs: windows.map((w) => execsIn(w, PROVIDER.static)),
      ecrTokens: ecrTokens.length,
      pulls: windows.map((w) => pullShown(w.run)),
    };
    // A slipped schedule only explains a disagreement: an agreement stands.
    const slipped = replay.join() !== prediction.value.execs.join() && !agrees({ prediction, observed });
    const createdAt = windows.map((w) => `+${w.createdAt - t0}ms`).join(', ');
    return judge(REFRESH, {
      prediction,
      observed,
      show: (v) => `execs per pull ${v.execs.join(', ')}; ${v.ecrTokens} ECR token(s) issued; ${v.pulls.join(', ')}`,
      invalidBecause: slipped
        ? `schedule slipped (pods created at ${createdAt} of a ${durationMs}ms entry)`
        : undefined,
      evidence: [
        {
          kind: 'data',
          label: 'schedule (ms after the first exec answered)',
          data: windows.map((w, i) => ({ pull: i + 1, createdMs: w.createdAt - t0, doneMs: w.doneAt - t0 })),
        },
        {
          kind: 'data',
          label: 'ECR tokens issued in us-west-2 (each rotated the registry password)',
          data: ecrTokens.map((r) => ({
            time: r.time,
            expiresAt: r.ecr?.expiresAt,
            passwordSha256: r.ecr?.passwordSha256,
          })),
        },
        ...s.windowEvidence(windows),
      ],
    });
  });
}
