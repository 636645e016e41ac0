// CACHE-ROTATION-RECOVERY: the first pull caches the Registry entry (old
// password); the registry's password is rotated and the fake rescripted to
// hand out the new one. New pods keep pulling: they fail with the cached old
// password until the entry expires, then the plugin is exec'd again and the
// pull succeeds.
import { randomBytes } from 'node:crypto';
import { caseOf, judge, poll, type Case, type Check, type PodRun } from '../../src/run/kit.ts';
import { failedMessage, providerCase, scenarioFor, type CacheLab } from './lab.ts';
import { image, REPOSITORIES, ROTATION_GIVE_UP_MS, ROTATION_TOLERANCE_MS, secs, type Plan } from './plan.ts';
import { ALL_FAILED, predictRotation, rotationAgrees, showRotation, type RotationSeen } from './predict.ts';

/** Pause between the pods that probe whether the kubelet recovered. */
const RETRY_PAUSE_MS = 1000;

export const rotationCase = (lab: CacheLab, check: Check, p: Plan): Case =>
  caseOf(check, async (ctx) => {
    const provider = await providerCase(ctx, lab, p);
    const one = image(p, 'a', REPOSITORIES.one);
    const { expiryMs, prediction } = predictRotation(p, one.request);
    const show = showRotation(expiryMs);

    const runs: PodRun[] = [];
    const first = await provider.pod(one.ref);
    runs.push(first);
    const firstExecs = await provider.execs();
    if (first.pull !== 'success' || firstExecs.length !== 1) {
      const what =
        first.pull === 'success' ? `saw ${firstExecs.length} execs instead of 1` : `failed: ${failedMessage(first)}`;
      return judge(check, {
        prediction,
        observed: { whileCached: 'no first pull', reinvokedAtMs: null, recoveredAtMs: null, rotatedAtMs: NaN },
        show,
        agree: rotationAgrees,
        evidence: await provider.evidence(runs),
        invalidBecause: `the first pull (before any rotation) ${what}: cannot test rotation`,
      });
    }
    const t0 = Date.parse(firstExecs[0]!.time);
    const user = lab.rotation.user;
    const newPassword = randomBytes(12).toString('hex');
    ctx.redactor.add(newPassword);
    await lab.rotation.registry.users.rotate(user.username, newPassword);
    await lab.fleet.rescript(p.name, scenarioFor(p, { username: user.username, password: newPassword }));
    const rotatedAt = ctx.clock.now();
    if (rotatedAt - t0 >= expiryMs) {
      const late = `the rotation came ${secs(rotatedAt - t0)} after the first exec, after the entry's ${secs(expiryMs)} life`;
      throw new Error(`${late}: nothing cached to test`);
    }

    let failedCached = 0;
    let succeededCached = 0;
    const failureReasons: Record<string, number> = {};
    // One pod after another until one pulls with credentials from a new exec.
    const recoveredAt = await poll(
      async () => {
        const execsBefore = (await provider.execs()).length;
        const run = await provider.pod(one.ref);
        const seenAt = ctx.clock.now();
        runs.push(run);
        const newExec = (await provider.execs()).length > execsBefore;
        if (run.pull === 'success') {
          if (newExec || (await provider.execs()).length > 1) return seenAt;
          succeededCached++;
        } else if (!newExec) {
          failedCached++;
          failureReasons[run.failure ?? 'unknown'] = (failureReasons[run.failure ?? 'unknown'] ?? 0) + 1;
        }
        return undefined;
      },
      {
        timeoutMs: t0 + expiryMs + ROTATION_TOLERANCE_MS + ROTATION_GIVE_UP_MS - ctx.clock.now(),
        clock: ctx.clock,
        intervalMs: RETRY_PAUSE_MS,
      },
    );
    const reExec = (await provider.execs()).slice(1)[0];
    const seen: RotationSeen = {
      whileCached:
        succeededCached > 0
          ? `${succeededCached} succeeded with the old password, ${failedCached} failed`
          : failedCached > 0
            ? ALL_FAILED
            : 'none before the re-exec',
      reinvokedAtMs: reExec ? Date.parse(reExec.time) - t0 : null,
      recoveredAtMs: recoveredAt === undefined ? null : recoveredAt - t0,
      rotatedAtMs: rotatedAt - t0,
    };
    const sinceRotationS = (ms: number | null) => (ms === null ? null : (ms - seen.rotatedAtMs) / 1000);
    const figures = {
      rotatedAtS: seen.rotatedAtMs / 1000,
      failedWhileCached: failedCached,
      failureReasons,
      reinvocationAfterRotationS: sinceRotationS(seen.reinvokedAtMs),
      recoveryAfterRotationS: sinceRotationS(seen.recoveredAtMs),
      predictedExpiryAfterRotationS: sinceRotationS(expiryMs),
      toleranceS: ROTATION_TOLERANCE_MS / 1000,
    };
    // The first pod, the last few and every success: the loop may have run dozens.
    const shown = runs.filter((r, i) => i === 0 || i >= runs.length - 3 || r.pull === 'success');
    return judge(check, {
      prediction: { ...prediction, value: { ...prediction.value, rotatedAtMs: seen.rotatedAtMs } },
      observed: seen,
      show,
      agree: rotationAgrees,
      evidence: [
        ...(await provider.evidence(shown)),
        { kind: 'data', label: 'rotation recovery figures (seconds)', data: figures },
      ],
    });
  });
