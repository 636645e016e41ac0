// credprov's model of the kubelet's per-provider credential cache (KEP-2133,
// pkg/credentialprovider/plugin/plugin.go as of v1.37.1): the cache suite's
// predictions come from here, and the real kubelet then checks the model.
//
// - Before exec, the cache is looked up under the image, its registry (the
//   first path segment) and the global key, in that order, whatever
//   cacheKeyType stored the entry.
// - A response is stored under the key its cacheKeyType names; an invalid
//   cacheKeyType is an error (no credentials, nothing stored).
// - cacheDuration: explicit 0 means not cached; absent means the provider's
//   defaultCacheDuration, and a default of 0 means not cached either.
// - An entry is expired once now is after its expiry (checked on read).
// - Concurrent lookups of one image share a single exec (singleflight, keyed
//   by image in non-token mode).
// Service-account token mode adds the SA to every key; this model covers
// the non-token mode only.
// - serializeImagePulls: false changes none of this: the lookup (and the
//   exec) runs in the pod worker before the puller queues the CRI pull
//   (image_manager.go v1.37.1:277 vs :359), so pods exec concurrently in
//   either mode (./parallel-pulls.ts).

export const GLOBAL_CACHE_KEY = '<global>';

export interface PluginAnswer {
  cacheKeyType: string;
  /** Milliseconds; undefined: the response has no cacheDuration. */
  cacheDurationMs?: number;
}

export interface CachedEntry {
  key: string;
  expiresAt: number;
}

/** Lookups of several images in one burst (pods created together, each pulling one image). */
export interface BurstDecision {
  /** Execs when every lookup arrives before any answer is stored. */
  together: number;
  /** Fewest execs when arrivals spread out (an earlier answer's Registry/Global entry serves later images). */
  fewest: number;
  /** Most execs the kubelet may ever make for the burst: the model's upper bound for a check. */
  most: number;
  because: string;
}

/** Several lookups of one image at the same moment (pods created together). */
export interface ConcurrentDecision {
  /** Plugin execs for the whole group: 0 (a live entry serves them all) or 1 (one exec whose answer every waiter shares). */
  execs: number;
  reason: string;
}

export type CacheDecision =
  { invoked: false; hit: CachedEntry; reason: string } | { invoked: true; stored?: CachedEntry; reason: string };

/** The registry part of a request image (`reg.test:5000/a/b` → `reg.test:5000`). */
export function registryOf(image: string): string {
  return image.split('/')[0]!;
}

export class CredentialCacheModel {
  private readonly entries = new Map<string, CachedEntry>();
  private readonly defaultCacheDurationMs: number;

  constructor(defaultCacheDurationMs: number) {
    this.defaultCacheDurationMs = defaultCacheDurationMs;
  }

  /** Would a pull of `image` (the request image: repository without tag) at `now` exec the plugin? Without `answer`, only looks. */
  lookup(image: string, now: number): CachedEntry | undefined {
    for (const key of [image, registryOf(image), GLOBAL_CACHE_KEY]) {
      const e = this.entries.get(key);
      if (e && !(now > e.expiresAt)) return e;
    }
    return undefined;
  }

  /** A pull at `now`: a cache hit, or an exec whose `answer` is stored as the kubelet would store it. */
  pull(image: string, now: number, answer: PluginAnswer): CacheDecision {
    const hit = this.lookup(image, now);
    if (hit)
      return {
        invoked: false,
        hit,
        reason: `cached under ${describeKey(hit.key)} until +${Math.round((hit.expiresAt - now) / 100) / 10}s`,
      };
    const lookedUp = `no live entry under ${image}, ${registryOf(image)} or ${GLOBAL_CACHE_KEY}`;
    const key = keyFor(answer.cacheKeyType, image);
    if (key === undefined)
      return {
        invoked: true,
        reason: `${lookedUp}; cacheKeyType '${answer.cacheKeyType}' is invalid, so nothing is stored`,
      };
    const duration = answer.cacheDurationMs ?? this.defaultCacheDurationMs;
    if (duration === 0) {
      const why =
        answer.cacheDurationMs === 0
          ? 'the response says cacheDuration 0s'
          : 'no cacheDuration and defaultCacheDuration 0s';
      return { invoked: true, reason: `${lookedUp}; not stored: ${why}` };
    }
    const stored = { key, expiresAt: now + duration };
    this.entries.set(key, stored);
    const from = answer.cacheDurationMs === undefined ? 'defaultCacheDuration' : 'the response';
    return {
      invoked: true,
      stored,
      reason: `${lookedUp}; stores ${describeKey(key)} for ${duration / 1000}s (${from})`,
    };
  }

  /**
   * `count` lookups of `image` that all arrive at `now`, before any has its
   * answer: a live entry serves them all; otherwise singleflight (keyed by the
   * image in non-token mode) runs one exec and every waiter gets its answer,
   * whatever its cacheDuration (even 0s, which stores nothing for later pulls).
   */
  pullTogether(image: string, now: number, count: number, answer: PluginAnswer): ConcurrentDecision {
    const first = this.pull(image, now, answer);
    if (!first.invoked) return { execs: 0, reason: `all ${count} lookups hit: ${first.reason}` };
    return {
      execs: 1,
      reason: `${count} concurrent lookups of ${image} share one exec (singleflight keyed by image); ${first.reason}`,
    };
  }

  /**
   * A burst of lookups of `images` (repeats allowed) with no answer in between: a live entry
   * serves an image; the rest exec once per distinct image (singleflight is keyed by image, so
   * images sharing a registry still exec each, plugin.go:505-522). Spread out, a stored
   * Registry or Global entry serves the images that come after it. Does not store anything.
   */
  burst(images: string[], now: number, answer: PluginAnswer): BurstDecision {
    const distinct = [...new Set(images)];
    const missing = distinct.filter((i) => !this.lookup(i, now));
    const stored = keyFor(answer.cacheKeyType, missing[0] ?? '') !== undefined;
    const duration = answer.cacheDurationMs ?? this.defaultCacheDurationMs;
    const shared = stored && duration > 0 && answer.cacheKeyType !== 'Image';
    const groups = shared
      ? new Set(missing.map((i) => (answer.cacheKeyType === 'Global' ? GLOBAL_CACHE_KEY : registryOf(i)))).size
      : missing.length;
    const hits = distinct.length - missing.length;
    return {
      together: missing.length,
      fewest: groups,
      most: missing.length,
      because:
        `${images.length} lookup(s) of ${distinct.length} image(s): ${hits} served by live entries; ` +
        `${missing.length} exec(s) when all arrive together (singleflight joins only the same image)` +
        (shared
          ? `, as few as ${groups} when spread out (a ${answer.cacheKeyType} entry serves the later ones)`
          : `, the same when spread out (${!stored ? 'an invalid cacheKeyType stores nothing' : duration === 0 ? 'nothing is stored' : 'Image entries serve only their own image'})`) +
        '; serializeImagePulls does not change it (lookups precede the puller)',
    };
  }
}

function keyFor(cacheKeyType: string, image: string): string | undefined {
  switch (cacheKeyType) {
    case 'Image':
      return image;
    case 'Registry':
      return registryOf(image);
    case 'Global':
      return GLOBAL_CACHE_KEY;
    default:
      return undefined;
  }
}

function describeKey(key: string): string {
  return key === GLOBAL_CACHE_KEY ? `the global key` : `key ${key}`;
}
