// The cache suite's plan, as data: one provider per case, each matching its
// own host glob (*.<zone>.cache.test) so every case runs under ONE kubelet
// config and the cases run side by side; which images each case pulls, and
// when. All hosts are routed to a lab registry through containerd hosts.toml;
// the rotation case has a registry of its own, since it changes the password.
import { goDurationMs } from '../../src/run/kit.ts';

export const DOMAIN = 'cache.test';
/** Planned gap between the key cases' pulls (they need only stay far inside the 5m entries). */
export const KEY_SLOT_MS = 20_000;
/** Rotation: how long after the entry's expiry a pod may still take to pull (pod creation, sandbox, pull). */
export const ROTATION_TOLERANCE_MS = 10_000;
/** Rotation: how long past the latest predicted recovery the case keeps pulling before it gives up. */
export const ROTATION_GIVE_UP_MS = 30_000;
export const SINGLEFLIGHT_PODS = 3;
export const POD_TIMEOUT_MS = 60_000;

export type KeyType = 'Image' | 'Registry' | 'Global';

/** One provider of the fleet and what its fake answers. */
export interface Plan {
  name: string;
  /** Its images live on `<x>.<zone>.cache.test`; the provider and its answer match `*.<zone>.cache.test`. */
  zone: string;
  defaultCacheDuration: string;
  cacheKeyType: KeyType;
  /** null: the response has no cacheDuration. */
  cacheDuration: string | null;
  /** How long the fake takes to answer. */
  delay?: string;
  registry: 'main' | 'rotation';
}

interface PlanOptions {
  delay?: string;
  registry?: Plan['registry'];
}

const plan = (
  name: string,
  zone: string,
  defaultCacheDuration: string,
  cacheKeyType: KeyType,
  cacheDuration: string | null,
  o: PlanOptions = {},
): Plan => ({
  name: `cache-${name}`,
  zone,
  defaultCacheDuration,
  cacheKeyType,
  cacheDuration,
  ...(o.delay ? { delay: o.delay } : {}),
  registry: o.registry ?? 'main',
});

// Durations: the key cases' 5m outlive the suite; the timed cases use 8s so a
// pod created at once after the first exec has its lookup (a second or two
// after creation, several on a loaded 2-core machine) well inside the entry's
// life, while the "after expiry" pull waits 2×8s; the rotation entry lives 20s.
// The zones are part of the image names, so they stay short.
export const PLANS = {
  image: plan('image', 'img', '5m', 'Image', '5m'),
  registry: plan('registry', 'reg', '5m', 'Registry', '5m'),
  global: plan('global', 'glb', '5m', 'Global', '5m'),
  defaultDuration: plan('default', 'dflt', '8s', 'Image', null),
  zeroResponse: plan('zero', 'zero', '5m', 'Image', '0s'),
  zeroDefault: plan('nodefault', 'nodflt', '0s', 'Image', null),
  expiry: plan('expiry', 'exp', '5m', 'Image', '8s'),
  rotation: plan('rotation', 'rot', '5m', 'Registry', '20s', { registry: 'rotation' }),
  singleflight: plan('singleflight', 'sf', '0s', 'Image', '0s', { delay: '3s' }),
};
export const ALL_PLANS: Plan[] = Object.values(PLANS);

/** The labels of the hosts each case pulls from: `a` always, `b` as "another registry". */
export const HOST_LABELS = ['a', 'b'];
/** The repositories pushed to the lab registries. */
export const REPOSITORIES = { one: 'cache/one', two: 'cache/two' };

export const glob = (p: Plan): string => `*.${p.zone}.${DOMAIN}`;
export const host = (p: Plan, label = 'a'): string => `${label}.${p.zone}.${DOMAIN}`;

/** An image: what the plugin is asked for (repository without tag) and what the pod pulls. */
export interface PlannedImage {
  request: string;
  ref: string;
}

export const image = (p: Plan, label: string, repository: string): PlannedImage => ({
  request: `${host(p, label)}/${repository}`,
  ref: `${host(p, label)}/${repository}:v1`,
});

/** How long the entry the first exec stores lives: the response's cacheDuration, else the provider's default. */
export const entryLifeMs = (p: Plan): number => goDurationMs(p.cacheDuration ?? p.defaultCacheDuration);

/** One pull as planned: its image and its time, ms after the case's origin. */
export interface Pull extends PlannedImage {
  label: string;
  atMs: number;
}

/** cacheKeyType × (same image again, another image on the registry, an image on another registry). */
export function keyPulls(p: Plan): Pull[] {
  const one = image(p, 'a', REPOSITORIES.one);
  const two = image(p, 'a', REPOSITORIES.two);
  const other = image(p, 'b', REPOSITORIES.one);
  return [
    { label: `first pull of ${one.request}`, ...one, atMs: 0 },
    { label: 'same image again', ...one, atMs: KEY_SLOT_MS },
    { label: `another image on the registry (${two.request})`, ...two, atMs: 2 * KEY_SLOT_MS },
    { label: `an image on another registry (${other.request})`, ...other, atMs: 3 * KEY_SLOT_MS },
  ];
}

/** cacheDuration 0s (either way): the same image twice. */
export function zeroPulls(p: Plan): Pull[] {
  const one = image(p, 'a', REPOSITORIES.one);
  return [
    { label: `first pull of ${one.request}`, ...one, atMs: 0 },
    { label: 'same image again', ...one, atMs: KEY_SLOT_MS },
  ];
}

/**
 * A timed sequence relative to the first exec's answer (t=0): a second pull
 * at once (planned at half the entry's life), a third once twice the entry's
 * life has passed since the first exec.
 */
export function expiryPulls(p: Plan): Pull[] {
  const life = entryLifeMs(p);
  const one = image(p, 'a', REPOSITORIES.one);
  return [
    { label: 'first pull', ...one, atMs: 0 },
    { label: `again within ${secs(life)}`, ...one, atMs: life / 2 },
    { label: `again after 2×${secs(life)}`, ...one, atMs: 2 * life },
  ];
}

/** Milliseconds as seconds with one decimal ("8.0s"). */
export const secs = (ms: number): string => `${(Math.round(ms / 100) / 10).toFixed(1)}s`;
