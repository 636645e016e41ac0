// The cases that are a sequence of pulls of one provider's images: the three
// cacheKeyTypes, the two ways of saying "do not cache", and the two expiry
// cases. Each states the model's prediction for its planned schedule, runs
// the pods, and is judged on the execs each pull caused; when the pods ran
// too far from the plan for the prediction to hold, it is no verdict.
import {
  caseOf,
  judge,
  poll,
  sleepUntil,
  type Case,
  type Check,
  type CheckResult,
  type Evidence,
  type PodRun,
} from '../../src/run/kit.ts';
import { failedMessage, providerCase, type CacheLab, type ProviderCase } from './lab.ts';
import { entryLifeMs, expiryPulls, keyPulls, POD_TIMEOUT_MS, zeroPulls, type Plan, type Pull } from './plan.ts';
import { predictPulls, showPulls, slippedSchedule, type PullSeen, type Window } from './predict.ts';

/** cacheKeyType × (same image again, another image on the registry, an image on another registry). */
export const keyCase = (lab: CacheLab, check: Check, p: Plan): Case =>
  caseOf(check, async (ctx) => sequential(check, await providerCase(ctx, lab, p), keyPulls(p)));

/** cacheDuration 0s (either way): the same image twice; the model decides whether the second pull execs. */
export const zeroCase = (lab: CacheLab, check: Check, p: Plan): Case =>
  caseOf(check, async (ctx) => sequential(check, await providerCase(ctx, lab, p), zeroPulls(p)));

/** The entry's life, timed from the first exec's answer: a pull at once is a hit, one after twice the life execs again. */
export const expiryCase = (lab: CacheLab, check: Check, p: Plan): Case =>
  caseOf(check, async (ctx) => timed(check, await providerCase(ctx, lab, p)));

/** Pulls one after another, each after the previous pod finished; execs are counted per pull, times from the first pod's creation. */
async function sequential(check: Check, provider: ProviderCase, pulls: Pull[]): Promise<CheckResult> {
  const seen: PullSeen[] = [];
  const runs: PodRun[] = [];
  const done: Window[] = [];
  let origin: number | undefined;
  for (const pull of pulls) {
    const before = (await provider.execs()).length;
    const timedPod = await provider.timedPod(pull.ref);
    origin ??= timedPod.createdAt;
    done.push({ fromMs: timedPod.createdAt - origin, toMs: timedPod.lookedUpBy - origin });
    runs.push(timedPod.run);
    seen.push({ label: pull.label, execs: (await provider.execs()).length - before });
  }
  return verdict(check, provider, pulls, done, seen, runs);
}

async function timed(check: Check, provider: ProviderCase): Promise<CheckResult> {
  const p = provider.plan;
  const pulls = expiryPulls(p);
  const [firstPull, withinLife, afterLife] = pulls as [Pull, Pull, Pull];
  // The first pod's exec is the origin (t=0): the kubelet stores the entry when the answer comes back.
  const first = provider.pod(firstPull.ref);
  // Awaited below; until then a failure must not be an unhandled rejection.
  void first.catch(() => undefined);
  const firstExec = await poll(async () => (await provider.execs())[0], {
    timeoutMs: POD_TIMEOUT_MS,
    intervalMs: 150,
    clock: provider.clock,
  });
  if (!firstExec) {
    const run = await first;
    return verdict(check, provider, pulls, [{ fromMs: 0, toMs: 0 }], [{ label: firstPull.label, execs: 0 }], [run]);
  }
  const t0 = Date.parse(firstExec.time);
  // The second pod at once, without waiting for the first to finish.
  const [firstRun, second] = await Promise.all([first, provider.timedPod(withinLife.ref)]);
  const afterSecond = (await provider.execs()).length;
  await sleepUntil(t0 + 2 * entryLifeMs(p), provider.clock);
  const third = await provider.timedPod(afterLife.ref);
  const afterThird = (await provider.execs()).length;
  const seen: PullSeen[] = [
    { label: firstPull.label, execs: 1 },
    { label: withinLife.label, execs: afterSecond - 1 },
    { label: afterLife.label, execs: afterThird - afterSecond },
  ];
  const done = [
    { fromMs: 0, toMs: 0 },
    ...[second, third].map((t) => ({ fromMs: t.createdAt - t0, toMs: t.lookedUpBy - t0 })),
  ];
  return verdict(check, provider, pulls, done, seen, [firstRun, second.run, third.run]);
}

/**
 * The model's prediction vs the execs seen; no verdict (a harness failure)
 * if the real schedule would change the prediction; a failure when a pull
 * the plugin had valid credentials for did not succeed.
 */
async function verdict(
  check: Check,
  provider: ProviderCase,
  pulls: Pull[],
  done: Window[],
  seen: PullSeen[],
  runs: PodRun[],
): Promise<CheckResult> {
  const failed = runs.filter((r) => r.pull === 'failure');
  const why = failed.map((r) => `${r.name}: ${failedMessage(r)}`).join('; ');
  const failures =
    failed.length === 0
      ? undefined
      : `${failed.length} pull(s) failed although the plugin's credentials are valid: ${why}`;
  const schedule: Evidence = {
    kind: 'data',
    label:
      "schedule, ms after the origin: planned (the model's time) and done " +
      "(the lookup happened between the pod's creation and its Pulling event + 1s, or its outcome)",
    data: pulls.map((x, i) => ({
      pull: x.label,
      image: x.ref,
      plannedMs: x.atMs,
      createdMs: done[i]?.fromMs ?? null,
      lookedUpByMs: done[i]?.toMs ?? null,
    })),
  };
  return judge(check, {
    prediction: predictPulls(provider.plan, pulls),
    observed: seen,
    show: showPulls,
    evidence: [schedule, ...(await provider.evidence(runs))],
    invalidBecause: slippedSchedule(provider.plan, pulls, done),
    problems: failures ? [failures] : [],
    onDisagree: failures,
  });
}
