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
