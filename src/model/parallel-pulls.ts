// credprov's model of what `serializeImagePulls: false` and `maxParallelImagePulls`
// change for credential plugins and KEP-2535 (read in k8s.io/kubernetes v1.36.5
// and v1.37.1; what differs by patch is the version table's `stripedLockFix`).
//
// What does NOT change (so the cache, matching and ensure-secret-pulled models
// hold as they are under parallel pulls):
// - images/image_manager.go EnsureImageExists (v1.37.1:170-281) looks the pod's
//   credentials up, and so execs the plugins, in the pod worker's goroutine,
//   before pullImage hands the pull to the puller (:359). serializeImagePulls
//   picks only the puller (images/puller.go: one worker draining a queue, or a
//   goroutine per pull behind a channel of maxParallelImagePulls tokens): it
//   queues CRI PullImage calls, never plugin execs. Concurrent pods exec
//   concurrently either way, and singleflight (plugin.go:522, keyed by image,
//   or by image + token hash + annotations in token mode) joins only lookups of
//   the same key. So the cache model's concurrency is the same in both modes.
// - KEP-2535 takes its decisions under per-key locks; records and intents are
//   written the same way.
//
// What DOES change (k/k #138935, fixed by #138937):
// - kuberuntime_manager.go (v1.36.5:337-344) sizes KEP-2535's striped lock
//   sets by maxParallelImagePulls (0 when unset, i.e. serial pulls, clamped to
//   1). Before the fix, locks.go allocates min(31, N) mutexes but indexes them
//   by fnv32(key) % N (locks.go v1.36.5:34-45, 63-67): with N > 31 a key whose
//   index is 31 or more panics with "index out of range [i] with length 31".
//   The keys: the image as the pod writes it (intents: RecordPullIntent before
//   every pull, ImagePullIntentExists, MustAttemptImagePull) and the image ID
//   (pulled records: RecordImagePulled after a pull, MustAttemptImagePull).
//   It is the configured limit that matters, not how many pulls run: a single
//   pull of an unlucky name panics. The panic is in the pod worker, whose
//   HandleCrash re-panics (apimachinery ReallyCrash), so the kubelet exits; the
//   plugin was already exec'd (the lookup comes first).
// - The fix (v1.37.0 locks.go:24-28,40) clamps N to [1, 31].
import { behaviourFor, parseKubeVersion, type KubeBehaviour, type KubeVersion } from '../versions/table.ts';

/** The number of mutexes old kubelets allocate at most, and the size the fix clamps to. */
export const STRIPED_LOCKS_MAX = 31;

/** Go's hash/fnv New32 (FNV-1, 32 bit: multiply, then xor) over the key's UTF-8 bytes. */
export function fnv1_32(key: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(key, 'utf8')) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ b) >>> 0;
  }
  return h >>> 0;
}

export interface StripedLocks {
  /** How many mutexes the set holds. */
  length: number;
  /** What keys are reduced modulo. */
  modulo: number;
  /** locks.go as read for this kubelet. */
  sizing: 'clamped' | 'unclamped';
  because: string;
}

/** Does this kubelet carry #138937? From the version table's stripedLockFix, per patch. */
export function carriesStripedLockFix(version: KubeVersion | string): { fixed: boolean; because: string } {
  const v = typeof version === 'string' ? parseKubeVersion(version) : version;
  const fix = behaviourFor(v).stripedLockFix;
  const read = fix.readPatches.map((p) => `v1.${v.minor}.${p}`).join(', ') || 'no patch';
  if (fix.fixedFromPatch !== undefined) {
    if (v.patch === undefined || v.patch >= fix.fixedFromPatch)
      return {
        fixed: true,
        because: `locks.go clamps the size from v1.${v.minor}.${fix.fixedFromPatch} (k/k #138937)`,
      };
    return {
      fixed: false,
      because: `v1.${v.minor}.${fix.fixedFromPatch} is the first 1.${v.minor} patch with #138937`,
    };
  }
  const newest = Math.max(-1, ...fix.readPatches);
  const unread = v.patch === undefined || v.patch > newest;
  return {
    fixed: false,
    because: unread
      ? `no 1.${v.minor} patch read carries #138937 (read: ${read}); ${v.text} is assumed to be like them`
      : `${v.text} has the unclamped locks.go (read: ${read})`,
  };
}

/** NewStripedLockSet(maxParallelImagePulls or 0) as this kubelet builds it. */
export function stripedLocks(version: KubeVersion | string, maxParallelImagePulls: number | undefined): StripedLocks {
  const n = Math.max(maxParallelImagePulls ?? 0, 1);
  const { fixed, because } = carriesStripedLockFix(version);
  if (fixed) {
    const size = Math.min(STRIPED_LOCKS_MAX, n);
    return { length: size, modulo: size, sizing: 'clamped', because };
  }
  return { length: Math.min(STRIPED_LOCKS_MAX, n), modulo: n, sizing: 'unclamped', because };
}

/** The mutex a key takes: fnv32(key) % modulo. */
export function stripedLockIndex(key: string, modulo: number): number {
  return fnv1_32(key) % modulo;
}

export interface LockPanicCase {
  kubelet: KubeVersion | string;
  /** KubeletEnsureSecretPulledImages; default the version table's. */
  gateEnabled?: boolean;
  serializeImagePulls: boolean;
  maxParallelImagePulls?: number;
  /** The image as the pod writes it (the intent lock's key). */
  image: string;
  /** The image ID the pull ends with (the pulled-record lock's key): containerd's config digest, sha256:…. */
  imageRef: string;
}

export interface LockPanicPrediction {
  panics: boolean;
  /** Which lock and key panic first: the intent lock before the pull, the record lock after it. */
  at?: { lock: 'intent' | 'pulled-record'; key: string; index: number; length: number };
  /** The kubelet's own words: `index out of range [i] with length 31`. */
  message?: string;
  /** The plugin is exec'd before the panic (the lookup precedes RecordPullIntent). */
  pluginExecdFirst: boolean;
  because: string;
}

/** One pull of an image that is not on the node, under KEP-2535's locks. */
export function kep2535LockPanic(c: LockPanicCase): LockPanicPrediction {
  const v = typeof c.kubelet === 'string' ? parseKubeVersion(c.kubelet) : c.kubelet;
  const row: KubeBehaviour = behaviourFor(v);
  const gate = c.gateEnabled ?? row.gateDefaults.KubeletEnsureSecretPulledImages === true;
  const noPanic = (because: string): LockPanicPrediction => ({ panics: false, pluginExecdFirst: true, because });
  if (!gate) return noPanic('KubeletEnsureSecretPulledImages is off: no pull manager, no striped locks');
  if (c.serializeImagePulls && (c.maxParallelImagePulls ?? 0) > 1)
    return noPanic('the kubelet refuses this config (maxParallelImagePulls > 1 needs serializeImagePulls: false)');
  const locks = stripedLocks(v, c.serializeImagePulls ? undefined : c.maxParallelImagePulls);
  const sized = `${locks.length} lock(s), keys modulo ${locks.modulo} (${locks.because})`;
  for (const [lock, key] of [
    ['intent', c.image],
    ['pulled-record', c.imageRef],
  ] as const) {
    const index = stripedLockIndex(key, locks.modulo);
    if (index >= locks.length)
      return {
        panics: true,
        at: { lock, key, index, length: locks.length },
        message: `index out of range [${index}] with length ${locks.length}`,
        pluginExecdFirst: true,
        because: `${sized}: the ${lock === 'intent' ? 'intent lock (RecordPullIntent, before the pull)' : 'pulled-record lock (RecordImagePulled, after the pull)'} indexes ${key} at ${index}, past the last mutex: the pod worker panics and HandleCrash takes the kubelet down (k/k #138935)`,
      };
  }
  return noPanic(
    `${sized}: ${c.image} and ${c.imageRef} index mutexes ${stripedLockIndex(c.image, locks.modulo)} and ${stripedLockIndex(c.imageRef, locks.modulo)}, both within the set`,
  );
}

/**
 * The first `<base>:<tag>` (tags t0, t1, …) whose intent index panics (or does not) on an unclamped
 * kubelet with this limit, and whose imageRef index does not panic: what a suite pulls to show the
 * crash (or its absence) deterministically. The imageRef is fixed by the image's content.
 */
export function imageNameForLockIndex(
  base: string,
  imageRef: string,
  maxParallelImagePulls: number,
  want: 'past-the-set' | 'within-the-set',
): string {
  if (maxParallelImagePulls <= STRIPED_LOCKS_MAX && want === 'past-the-set')
    throw new Error(`maxParallelImagePulls ${maxParallelImagePulls} cannot index past ${STRIPED_LOCKS_MAX} mutexes`);
  if (stripedLockIndex(imageRef, maxParallelImagePulls) >= STRIPED_LOCKS_MAX && want === 'within-the-set')
    throw new Error(`${imageRef} itself indexes past the set with modulo ${maxParallelImagePulls}: pick another limit`);
  for (let i = 0; i < 10_000; i++) {
    const image = `${base}:t${i}`;
    const past = stripedLockIndex(image, maxParallelImagePulls) >= STRIPED_LOCKS_MAX;
    if (past === (want === 'past-the-set')) return image;
  }
  throw new Error(`no tag of ${base} up to t9999 indexes ${want} with modulo ${maxParallelImagePulls}`);
}

// KEP-3673's bound (images/puller.go, the same in v1.33.13 through v1.38.0-beta.0):
// parallelImagePuller.pullImage takes one of maxParallelImagePulls tokens (a
// buffered channel; none when the limit is unset or < 1) around the runtime's
// PullImage (kuberuntime_image.go: containerd's resolve, fetch and unpack, every
// credential tried in turn) and GetImageSize. The credential lookup, and so the
// plugin exec, runs before it in the pod worker (image_manager.go v1.37.1:283
// lookupPullCredentials, then pullImage:366 hands the pull to the puller), so
// the token bounds what the registry sees, never the plugin: a pod waiting for
// a token has already exec'd the plugin. serialImagePuller is one goroutine
// draining a queue: one pull at a time.

export interface PullConcurrency {
  serializeImagePulls: boolean;
  maxParallelImagePulls?: number;
}

export interface InFlightBound {
  /** The most pulls at the registry at once (CRI PullImage calls holding a token) for `images` distinct images pulled together. */
  registry: number;
  /** The most plugin execs at once: one per distinct lookup key, whatever the limit (the lookup precedes the token). */
  plugin: number;
  because: string;
}

/** How many of `images` distinct images, each with its own lookup key, the kubelet pulls (and looks up) at once at most. */
export function pullsInFlight(c: PullConcurrency, images: number): InFlightBound {
  const plugin = `the plugin is exec'd before the puller (image_manager.go lookupPullCredentials, then puller.pullImage): up to ${images} exec(s) at once, not bounded by the puller`;
  if (c.serializeImagePulls)
    return {
      registry: Math.min(1, images),
      plugin: images,
      because: `serialImagePuller: one pull at a time; ${plugin}`,
    };
  const n = c.maxParallelImagePulls;
  if (n === undefined || n < 1)
    return {
      registry: images,
      plugin: images,
      because: `parallelImagePuller without tokens (maxParallelImagePulls ${n ?? 'unset'}): every pull at once; ${plugin}`,
    };
  return {
    registry: Math.min(n, images),
    plugin: images,
    because: `parallelImagePuller: ${n} token(s) around the runtime's PullImage, so at most ${n} pull(s) reach the registry at once; ${plugin}`,
  };
}
