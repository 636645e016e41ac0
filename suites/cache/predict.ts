// credprov's predictions for the cache suite: the cache model
// (src/model/credential-cache.ts) driven through a case's plan. Pure: the plan
// and the times come in, the prediction goes out. The same functions replay
// the model at the times the pods really ran: if that changes the prediction,
// the schedule slipped and the comparison is no verdict on the kubelet.
import { isDeepStrictEqual } from 'node:util';
import { CredentialCacheModel, type PluginAnswer } from '../../src/model/credential-cache.ts';
import { goDurationMs, type Prediction } from '../../src/run/kit.ts';
import { ROTATION_TOLERANCE_MS, secs, type Plan, type Pull } from './plan.ts';

export const MODEL = 'cache model (src/model/credential-cache.ts)';

/** What a pull did, predicted or observed. */
export interface PullSeen {
  label: string;
  /** Plugin execs of this provider attributed to the pull. */
  execs: number;
}

/** When a pull's credential lookup can have happened, ms after the case's origin. */
export interface Window {
  fromMs: number;
  toMs: number;
}

/** What the plan's fake answers, as the model takes it. */
export const modelAnswer = (p: Plan): PluginAnswer => ({
  cacheKeyType: p.cacheKeyType,
  ...(p.cacheDuration === null ? {} : { cacheDurationMs: goDurationMs(p.cacheDuration) }),
});

const newModel = (p: Plan): CredentialCacheModel => new CredentialCacheModel(goDurationMs(p.defaultCacheDuration));

export const describePlan = (p: Plan): string =>
  `${p.name}: cacheKeyType ${p.cacheKeyType}, cacheDuration ${p.cacheDuration ?? 'absent'}, ` +
  `defaultCacheDuration ${p.defaultCacheDuration}${p.delay ? `, answers after ${p.delay}` : ''}`;

export const showPulls = (pulls: PullSeen[]): string =>
  pulls.map((p) => `${p.label} → ${p.execs === 0 ? 'cached' : p.execs === 1 ? 'exec' : `${p.execs} execs`}`).join(', ');

/** The model's verdict for a sequence of pulls, each at its `atMs`. */
export function predictPulls(p: Plan, pulls: Array<Pick<Pull, 'label' | 'request' | 'atMs'>>): Prediction<PullSeen[]> {
  const model = newModel(p);
  const answer = modelAnswer(p);
  const decisions = pulls.map((x) => ({ label: x.label, decision: model.pull(x.request, x.atMs, answer) }));
  const steps = decisions.map(
    ({ label, decision }) => `${label}: ${decision.invoked ? 'exec' : 'hit'} (${decision.reason})`,
  );
  return {
    value: decisions.map(({ label, decision }) => ({ label, execs: decision.invoked ? 1 : 0 })),
    model: MODEL,
    because: `${describePlan(p)}: ${steps.join('; ')}`,
  };
}

/**
 * Why the real schedule voids the planned prediction, or undefined when it
 * holds: the model is replayed with each lookup at the earliest and at the
 * latest moment it can have happened (`done`; a pull without a window keeps
 * its planned time).
 */
export function slippedSchedule(p: Plan, pulls: Pull[], done: Window[]): string | undefined {
  const planned = predictPulls(p, pulls).value;
  const replayAt = (end: keyof Window) =>
    predictPulls(
      p,
      pulls.map((x, i) => ({ ...x, atMs: done[i]?.[end] ?? x.atMs })),
    ).value;
  if (isDeepStrictEqual(replayAt('fromMs'), planned) && isDeepStrictEqual(replayAt('toMs'), planned)) return undefined;
  const when = pulls
    .map(
      (x, i) =>
        `${x.label} planned +${secs(x.atMs)}, looked up in +${secs(done[i]?.fromMs ?? NaN)}…+${secs(done[i]?.toMs ?? NaN)}`,
    )
    .join('; ');
  return `schedule slipped, the prediction no longer holds for when the pods really ran (${when})`;
}

/** The rotation case, predicted or observed; times in ms after the first exec. */
export interface RotationSeen {
  /** Pulls between the rotation and the re-invocation: what happened to them. */
  whileCached: string;
  /** The first exec after the rotation; null: none. */
  reinvokedAtMs: number | null;
  /** The first successful pull after the rotation; null: none. */
  recoveredAtMs: number | null;
  /** When the password was rotated (NaN in the prediction until the case has rotated it). */
  rotatedAtMs: number;
}

export interface RotationPrediction {
  /** When the entry the first exec stores expires, ms after that exec. */
  expiryMs: number;
  prediction: Prediction<RotationSeen>;
}

export const ALL_FAILED = 'all failed, no exec';

/**
 * The first pull caches the plan's entry (old password); until it expires
 * every pull uses the old password and fails; the first lookup after expiry
 * execs the plugin, which hands out the new password.
 */
export function predictRotation(p: Plan, request: string): RotationPrediction {
  const model = newModel(p);
  const stored = model.pull(request, 0, modelAnswer(p));
  if (!stored.invoked || !stored.stored)
    throw new Error(`the model stores nothing for ${describePlan(p)}: not a rotation case`);
  const expiryMs = stored.stored.expiresAt;
  // The model's own answer to "when is the first lookup that execs again": cached at expiry, gone just after.
  if (model.lookup(request, expiryMs) === undefined || model.lookup(request, expiryMs + 1) !== undefined) {
    throw new Error('cache model: expiry boundary is not where the entry says');
  }
  const because =
    `${describePlan(p)}: the first exec stores ${stored.reason.replace(/^.*; stores /, '')}; ` +
    `until +${secs(expiryMs)} every pull uses the old password and fails; ` +
    `the first lookup after +${secs(expiryMs)} execs the plugin (new password), ` +
    `so recovery by +${secs(expiryMs + ROTATION_TOLERANCE_MS)} (expiry + ${secs(ROTATION_TOLERANCE_MS)} pod latency)`;
  return {
    expiryMs,
    prediction: {
      value: { whileCached: ALL_FAILED, reinvokedAtMs: expiryMs, recoveredAtMs: expiryMs, rotatedAtMs: NaN },
      model: MODEL,
      because,
    },
  };
}

/** The kubelet agrees when every pull while cached failed without an exec, it re-execs no earlier than expiry, and recovers within the tolerance. */
export function rotationAgrees(predicted: RotationSeen, seen: RotationSeen): boolean {
  return (
    seen.whileCached === predicted.whileCached &&
    seen.reinvokedAtMs !== null &&
    predicted.reinvokedAtMs !== null &&
    seen.reinvokedAtMs >= predicted.reinvokedAtMs &&
    seen.recoveredAtMs !== null &&
    predicted.recoveredAtMs !== null &&
    seen.recoveredAtMs <= predicted.recoveredAtMs + ROTATION_TOLERANCE_MS
  );
}

/** How a rotation value reads: the prediction (no rotation time yet) as its rule, an observation against the expiry. */
export function showRotation(expiryMs: number): (v: RotationSeen) => string {
  return (v) => {
    if (Number.isNaN(v.rotatedAtMs)) {
      return (
        `pulls fail until expiry, re-exec not before +${secs(v.reinvokedAtMs ?? NaN)}, ` +
        `recovery by +${secs((v.recoveredAtMs ?? NaN) + ROTATION_TOLERANCE_MS)}`
      );
    }
    const sinceRotation = (ms: number) => secs(ms - v.rotatedAtMs);
    const reExec =
      v.reinvokedAtMs === null
        ? 'never'
        : `+${secs(v.reinvokedAtMs)} (${sinceRotation(v.reinvokedAtMs)} after the rotation, predicted ≥ ${sinceRotation(expiryMs)})`;
    const recovered =
      v.recoveredAtMs === null
        ? 'never'
        : `+${secs(v.recoveredAtMs)} (${sinceRotation(v.recoveredAtMs)} after the rotation, ` +
          `predicted ${sinceRotation(expiryMs)}–${sinceRotation(expiryMs + ROTATION_TOLERANCE_MS)})`;
    return `pulls after the rotation (+${secs(v.rotatedAtMs)}): ${v.whileCached}; re-exec at ${reExec}; first good pull at ${recovered}`;
  };
}

/** `pods` pods of one image created together, while the plugin takes its delay to answer: how many execs. */
export function predictSingleflight(p: Plan, request: string, pods: number): Prediction<number> {
  const decision = newModel(p).pullTogether(request, 0, pods, modelAnswer(p));
  return { value: decision.execs, model: MODEL, because: `${describePlan(p)}: ${decision.reason}` };
}
