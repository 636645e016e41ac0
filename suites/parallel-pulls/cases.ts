// The parallel-pulls cases, one after another (the lock case restarts the
// kubelet): a burst of pods under the suite's parallel-pull kubelet, counted
// against the cache model's bounds; then the kubelet with
// maxParallelImagePulls above 31, two pulls, the kubelet's fate predicted per
// version from the striped-lock model, and the suite's kubelet restored.
import { readFile } from 'node:fs/promises';
import {
  caseOf,
  createPod,
  judge,
  kubeletEvidence,
  kubeletFilesOf,
  kubeletVersionOf,
  linesSince,
  runPod,
  since,
  sleep,
  waitForPodOutcome,
  type BuiltImage,
  type Case,
  type CaseContext,
  type Environment,
  type FakeInvocation,
  type Fleet,
  type LabRegistry,
  type PodOutcome,
} from '../../src/run/kit.ts';
import { EXECS_BOUNDED, STRIPED_LOCKS } from './checks.ts';
import {
  burstPods,
  LOCK_LIMIT,
  LOCK_POD_TIMEOUT_MS,
  LOCKS_PROVIDER,
  LOCKS_REPOSITORY,
  BURST_PROVIDER,
  POD_TIMEOUT_MS,
} from './plan.ts';
import { knownBug, predictBurst, predictLockPods, withinBounds, type LockSeen } from './predict.ts';

export interface PpLab {
  id: string;
  lab: LabRegistry;
  fleet: Fleet;
  burstHost: string;
  locksHost: string;
  /** The lock case's image: its image ID indexes within the set under LOCK_LIMIT. */
  locksImage: BuiltImage;
}

const execsOf = (all: FakeInvocation[], provider: string) => all.filter((i) => i.provider === provider);
const brief = (i: FakeInvocation) => ({ time: i.time, durationMs: i.durationMs, image: i.image });

async function kubeletRunning(ctx: CaseContext, env: Environment): Promise<boolean> {
  const status = await ctx.provider.status(env);
  return status.components.find((c) => c.name === 'kubelet')?.running === true;
}

export const burstCase = (l: PpLab): Case =>
  caseOf(EXECS_BOUNDED, async (ctx) => {
    const env = ctx.environment;
    const namespace = await ctx.namespace('pp-burst');
    ctx.onFailure(() => kubeletEvidence(env, [l.burstHost, 'credential provider', 'Failed to pull']));
    const config = await readFile(kubeletFilesOf(env).configFile, 'utf8');
    const parallel = /^serializeImagePulls: false$/m.test(config) && /^maxParallelImagePulls: \d+$/m.test(config);
    const pods = burstPods(l.burstHost, l.id);
    const prediction = predictBurst(pods.map((p) => p.image));
    const window = await since(() => l.fleet.invocations());
    // Created together (one apply each, in parallel), then awaited: the lookups overlap the fake's delay.
    const runs = await Promise.all(
      pods.map((p) =>
        runPod(env, { name: p.name, namespace, image: p.image, pullPolicy: 'Always', timeoutMs: POD_TIMEOUT_MS }),
      ),
    );
    const execs = execsOf(await window.added(), BURST_PROVIDER);
    const failed = runs.filter((r) => r.pull === 'failure').map((r) => `${r.name}: ${r.failure}`);
    const alive = await kubeletRunning(ctx, env);
    return judge(EXECS_BOUNDED, {
      prediction,
      observed: execs.length,
      agree: (_, n) => withinBounds(prediction, n),
      show: (n) =>
        `${n} exec(s) for ${pods.length} pods over ${new Set(pods.map((p) => p.image)).size} images (the model allows ${prediction.fewest}–${prediction.most})`,
      evidence: [
        { kind: 'invocation', label: `execs of ${BURST_PROVIDER}`, data: execs.map(brief) },
        { kind: 'text', label: 'the kubelet config (pulls)', text: pullLines(config) },
        ...runs.flatMap((r) => r.evidence),
      ],
      problems: [
        ...(failed.length > 0 ? [`${failed.length} pod(s) failed to pull: ${failed.join('; ')}`] : []),
        ...(alive ? [] : ['the kubelet is no longer running after the burst']),
      ],
      ...(parallel
        ? {}
        : {
            invalidBecause: `the kubelet's config does not pull in parallel (${pullLines(config) || 'no pull lines'})`,
          }),
    });
  });

const pullLines = (config: string) =>
  config
    .split('\n')
    .filter((l) => /^(serializeImagePulls|maxParallelImagePulls):/.test(l))
    .join('; ');

export const locksCase = (l: PpLab): Case =>
  caseOf(STRIPED_LOCKS, async (ctx) => {
    const base = ctx.environment;
    const namespace = await ctx.namespace('pp-locks');
    const kubelet = kubeletVersionOf(base);
    const pods = predictLockPods(kubelet, l.locksHost, l.locksImage.config.digest, l.id);
    await l.lab.pushImages(
      pods.map((p) => ({ image: l.locksImage, repository: LOCKS_REPOSITORY, tag: p.image.split(':').pop()! })),
      // One at a time: two tags of one image pushed at once race on its blobs (DIGEST_INVALID, seen on v1.36.5).
      1,
    );
    const log = await linesSince(kubeletFilesOf(base).log);
    const config = base.spec.kubelet.config;
    const env = await ctx.provider.restartKubelet(
      base,
      { kubelet: { config: { ...config, maxParallelImagePulls: LOCK_LIMIT } }, exitExpected: true },
      ctx.progress,
    );
    const observed: LockSeen[] = [];
    const outcomes: string[] = [];
    try {
      for (const p of pods) {
        const window = await since(() => l.fleet.invocations());
        await createPod(env, { name: p.name, namespace, image: p.image, pullPolicy: 'Always' });
        const seen = await outcomeOrExit(ctx, env, p.name, namespace);
        const execs = execsOf(await window.added(), LOCKS_PROVIDER).length;
        const panic = seen.kubelet === 'exits' ? panicOf(await log.added()) : null;
        observed.push({ kubelet: seen.kubelet, panic, execs });
        outcomes.push(`${p.name}: ${seen.outcome ? describe(seen.outcome) : 'no outcome (the kubelet exited)'}`);
        if (seen.kubelet === 'exits') break;
      }
    } finally {
      // The suite's kubelet again (a crashed one too): the pods left on the node pull under its limit.
      await ctx.provider.restartKubelet(env, { kubelet: { config } }, ctx.progress);
    }
    const lines = (await log.added()).filter((x) => /panic|index out of range|goroutine \d+ \[/.test(x)).slice(0, 12);
    const note = knownBug(kubelet, pods[0]!.fix);
    return judge(STRIPED_LOCKS, {
      prediction: {
        value: pods.map((p) => p.seen.value),
        model: pods[0]!.seen.model,
        because: pods.map((p) => p.seen.because).join(' | '),
      },
      observed,
      show: (v) =>
        v
          .map((s, n) => `${pods[n]!.name}: ${s.execs} exec(s), kubelet ${s.kubelet}${s.panic ? ` (${s.panic})` : ''}`)
          .join('; '),
      evidence: [
        { kind: 'text', label: 'pods', text: outcomes.join('\n') },
        { kind: 'text', label: 'kubelet log: the panic', text: lines.join('\n') || '(none)' },
      ],
      // A crash the table predicts is still the kubelet's failure to honour a valid limit (KEP-3673): the check
      // fails as predicted, naming the known bug, as a release qualifier needs to see it.
      problems: observed
        .map((s, n) =>
          s.kubelet === 'lives'
            ? /ran/.test(outcomes[n]!)
              ? ''
              : `${outcomes[n]} (its pull failed)`
            : `the kubelet exited on ${pods[n]!.name}${s.panic ? ` (${s.panic})` : ''}: k/k #138935, finding 21`,
        )
        .filter(Boolean),
      ...(note ? { note } : {}),
    });
  });

/** The pod's outcome, or the kubelet's exit (polled once a second) if that comes first. */
async function outcomeOrExit(
  ctx: CaseContext,
  env: Environment,
  name: string,
  namespace: string,
): Promise<{ kubelet: LockSeen['kubelet']; outcome?: PodOutcome }> {
  const stop = new AbortController();
  const pod = waitForPodOutcome(env, name, LOCK_POD_TIMEOUT_MS, namespace).then((outcome) => ({
    kubelet: 'lives' as const,
    outcome,
  }));
  pod.catch(() => {});
  const exited = (async () => {
    while (!stop.signal.aborted) {
      await sleep(1000, ctx.clock, stop.signal).catch(() => {});
      if (!stop.signal.aborted && !(await kubeletRunning(ctx, env))) return { kubelet: 'exits' as const };
    }
    return new Promise<never>(() => {});
  })();
  try {
    const first = await Promise.race([pod, exited]);
    // A pod that ran says nothing about a panic a moment later: look once more.
    if (first.kubelet === 'lives' && !(await kubeletRunning(ctx, env))) return { kubelet: 'exits' };
    return first;
  } finally {
    stop.abort();
  }
}

const describe = (o: PodOutcome) =>
  o.kind === 'completed' ? `ran (exit ${o.exitCode})` : `${o.reason}: ${o.message.slice(0, 200)}`;

/** The kubelet's own panic message, from its log lines since the case began. */
function panicOf(lines: string[]): string | null {
  for (const l of lines) {
    const m = /index out of range \[\d+\] with length \d+/.exec(l);
    if (m) return m[0];
  }
  return null;
}
