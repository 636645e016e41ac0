// What the kubelet does under parallel pulls, from credprov's models: the
// cache model's burst bounds (src/model/credential-cache.ts: lookups precede
// the puller, so serializeImagePulls does not change them) and KEP-2535's
// striped locks (src/model/parallel-pulls.ts over the version table's
// stripedLockFix). Pure: image IDs and names come in.
import { CredentialCacheModel } from '../../src/model/credential-cache.ts';
import {
  carriesStripedLockFix,
  imageNameForLockIndex,
  kep2535LockPanic,
  pullsInFlight,
  STRIPED_LOCKS_MAX,
  stripedLockIndex,
  type PullConcurrency,
} from '../../src/model/parallel-pulls.ts';
import { goDurationMs, type Prediction } from '../../src/run/kit.ts';
import { BURST_ANSWER, LOCK_LIMIT, LOCKS_REPOSITORY, PARALLEL_CONFIG } from './plan.ts';

export const BURST_MODEL = 'cache model (src/model/credential-cache.ts CredentialCacheModel.burst)';
export const LIMIT_MODEL =
  'parallel pulls (src/model/parallel-pulls.ts pullsInFlight, images/puller.go parallelImagePuller)';
export const LOCK_MODEL = 'parallel pulls (src/model/parallel-pulls.ts kep2535LockPanic, version table stripedLockFix)';

/** The burst's execs: `value` when every lookup overlaps; any count in [fewest, most] agrees. */
export interface BurstPrediction extends Prediction<number> {
  fewest: number;
  most: number;
}

/** The burst's execs: one per image when the lookups overlap, as few as one per registry when they do not. */
export function predictBurst(images: string[]): BurstPrediction {
  const requests = images.map((i) => i.replace(/:[^:/]+$/, ''));
  const b = new CredentialCacheModel(0).burst(requests, 0, {
    cacheKeyType: BURST_ANSWER.cacheKeyType,
    cacheDurationMs: goDurationMs(BURST_ANSWER.cacheDuration),
  });
  return {
    value: b.together,
    fewest: b.fewest,
    most: b.most,
    model: BURST_MODEL,
    because: `serializeImagePulls: ${PARALLEL_CONFIG.serializeImagePulls}, maxParallelImagePulls: ${PARALLEL_CONFIG.maxParallelImagePulls}: ${b.because}`,
  };
}

/** A count of execs agrees when it falls within the model's bounds. */
export const withinBounds = (p: Pick<BurstPrediction, 'fewest' | 'most'>, execs: number): boolean =>
  execs >= p.fewest && execs <= p.most;

/** The limit case: the most pulls at the registry at once (`value`, reached when more pods wait than tokens), never above `bound`. */
export interface LimitPrediction extends Prediction<number> {
  bound: number;
  /** Pods ready to pull at once that make the case a test of the bound: one more than it. */
  judgeableFrom: number;
}

export function predictLimit(images: number, config: PullConcurrency = PARALLEL_CONFIG): LimitPrediction {
  const b = pullsInFlight(config, images);
  return {
    value: b.registry,
    bound: b.registry,
    judgeableFrom: b.registry + 1,
    model: LIMIT_MODEL,
    because: `${images} distinct images pulled together: ${b.because}`,
  };
}

/** The limit case's verdict on what it saw: skipped when too few pods waited at once to test the bound. */
export function judgeLimit(
  p: LimitPrediction,
  seen: { atRegistry: number; readyAtOnce: number },
): { agree: boolean } | { skip: string } {
  if (seen.readyAtOnce < p.judgeableFrom)
    return {
      skip:
        `at most ${seen.readyAtOnce} pod(s) were ready to pull at once (past their plugin exec, pull not done), ` +
        `fewer than ${p.judgeableFrom}: the pulls were too fast or too spread to test a limit of ${p.bound} ` +
        '(or the lookups waited for a token, which the model says they do not)',
    };
  return { agree: withinLimit(p, seen.atRegistry) };
}

export const withinLimit = (p: Pick<LimitPrediction, 'bound'>, atRegistry: number): boolean => atRegistry <= p.bound;

/** What one pull under maxParallelImagePulls LOCK_LIMIT leaves: the kubelet alive or gone, its panic, the plugin's execs. */
export interface LockSeen {
  kubelet: 'lives' | 'exits';
  /** `index out of range [i] with length 31`, from the kubelet's log; null without a panic. */
  panic: string | null;
  /** The lock provider's execs for the pod's image (it runs before the intent lock). */
  execs: number;
}

export interface LockPod {
  name: string;
  image: string;
  seen: Prediction<LockSeen>;
  /** The kubelet carries #138937 (the version table's stripedLockFix), in one line. */
  fix: { fixed: boolean; because: string };
}

/**
 * The lock case's two pods, in order: an image whose name and ID index within the 31 mutexes (safe on every
 * kubelet: it is the name, not the number of pulls, that crashes), then one whose name indexes past them.
 */
export function predictLockPods(kubelet: string, host: string, imageRef: string, id: string): LockPod[] {
  const base = `${host}/${LOCKS_REPOSITORY}`;
  const fix = carriesStripedLockFix(kubelet);
  return (['within-the-set', 'past-the-set'] as const).map((want, n) => {
    const image = imageNameForLockIndex(base, imageRef, LOCK_LIMIT, want);
    const p = kep2535LockPanic({
      kubelet,
      serializeImagePulls: false,
      maxParallelImagePulls: LOCK_LIMIT,
      image,
      imageRef,
    });
    return {
      name: `pp-${id}-lock-${n === 0 ? 'within' : 'past'}`,
      image,
      fix,
      seen: {
        value: { kubelet: p.panics ? 'exits' : 'lives', panic: p.message ?? null, execs: p.pluginExecdFirst ? 1 : 0 },
        model: LOCK_MODEL,
        because: `${image} (fnv32 % ${LOCK_LIMIT} = ${stripedLockIndex(image, LOCK_LIMIT)}): ${p.because}`,
      },
    };
  });
}

/** Whether an image ID indexes within the set under LOCK_LIMIT (the lock case's image must, or its "within" pod would not be). */
export const imageRefWithinTheSet = (imageRef: string): boolean =>
  stripedLockIndex(imageRef, LOCK_LIMIT) < STRIPED_LOCKS_MAX;

/** What a report says next to a predicted crash: the known upstream bug, not the plugin's failure. */
export function knownBug(kubelet: string, fix: { fixed: boolean; because: string }): string | undefined {
  if (fix.fixed) return undefined;
  return (
    `the known kubelet bug k/k #138935 (fixed by #138937 from v1.37.0), not the plugin's failure: ${fix.because}; ` +
    `on kubelet ${kubelet} keep maxParallelImagePulls at ${STRIPED_LOCKS_MAX} or below`
  );
}
