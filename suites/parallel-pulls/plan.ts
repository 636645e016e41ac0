// The parallel-pulls suite's plan, as data: the kubelet config it runs under,
// three fake providers on hosts of their own (each run's id in the host, so a
// reused environment's cache never answers for this run), the burst's images,
// the limit case's images and the lock case's limit. No I/O.

/** The suite's kubelet: parallel pulls, a limit the striped lock sets of every kubelet hold (≤ 31). */
export const PARALLEL_CONFIG = { serializeImagePulls: false, maxParallelImagePulls: 5 };
/** PP-STRIPED-LOCKS restarts the kubelet with a limit above 31 (k/k #138935: > 31 mutexes asked for, 31 allocated). */
export const LOCK_LIMIT = 64;

export const BURST_PROVIDER = 'credprov-pp-burst';
export const LOCKS_PROVIDER = 'credprov-pp-locks';
export const BURST_ZONE = 'burst.pp.test';
export const LOCKS_ZONE = 'locks.pp.test';
export const burstHost = (id: string): string => `${id}.${BURST_ZONE}`;
export const locksHost = (id: string): string => `${id}.${LOCKS_ZONE}`;

/** The burst: pods created together over images of one registry; the fake answers Registry/10m after a delay. */
export const BURST_REPOSITORIES = ['pp/a', 'pp/b', 'pp/c'];
export const PODS_PER_IMAGE = 2;
export const BURST_ANSWER = { cacheKeyType: 'Registry', cacheDuration: '10m', delay: '3s' } as const;
/** The lock case's provider execs on every lookup (Image, 0s), so each pod's exec is seen. */
export const LOCKS_ANSWER = { cacheKeyType: 'Image', cacheDuration: '0s' } as const;
export const LOCKS_REPOSITORY = 'pp/locks';

/**
 * PP-LIMIT-RESPECTED: N + 2 distinct images (one repository each, so each pod's lookup is its own key) pulled
 * together through their own provider and a recording front of the registry that holds every authenticated
 * manifest request LIMIT_HOLD_MS, so that every pull lasts at least that long and more than N overlap.
 */
export const LIMIT_PROVIDER = 'credprov-pp-limit';
export const LIMIT_ZONE = 'limit.pp.test';
export const limitHost = (id: string): string => `${id}.${LIMIT_ZONE}`;
export const LIMIT_IMAGES = PARALLEL_CONFIG.maxParallelImagePulls + 2;
export const LIMIT_REPOSITORIES = Array.from({ length: LIMIT_IMAGES }, (_, i) => `pp/limit-${i}`);
/** Image, 0s: one exec per pod, and its end says when the pod's pull may begin (the lookup precedes the puller). */
export const LIMIT_ANSWER = { cacheKeyType: 'Image', cacheDuration: '0s' } as const;
export const LIMIT_HOLD_MS = 3000;
/** The front's delay: authenticated manifest requests (the resolve every pull makes; containerd's first, anonymous try is not held). */
export const limitHold = (r: { path: string; credential: string }): number =>
  r.credential !== 'none' && /^\/v2\/.+\/manifests\//.test(r.path) ? LIMIT_HOLD_MS : 0;

/** The limit case's pods: one per repository, `<host>/<repository>:v1`. */
export const limitPods = (host: string, id: string): Array<{ name: string; image: string; repository: string }> =>
  LIMIT_REPOSITORIES.map((repository, i) => ({
    name: `pp-${id}-limit-${i}`,
    image: `${host}/${repository}:v1`,
    repository,
  }));

export const POD_TIMEOUT_MS = 90_000;
/** How long a lock pod's outcome (or the kubelet's exit) may take: pod start on a loaded machine. */
export const LOCK_POD_TIMEOUT_MS = 60_000;

/** The burst's pods: PODS_PER_IMAGE of each repository, as `<host>/<repository>:v1`. */
export function burstPods(host: string, id: string): Array<{ name: string; image: string }> {
  return BURST_REPOSITORIES.flatMap((repo, i) =>
    Array.from({ length: PODS_PER_IMAGE }, (_, n) => ({
      name: `pp-${id}-burst-${i}-${n}`,
      image: `${host}/${repo}:v1`,
    })),
  );
}
