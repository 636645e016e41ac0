// Which exact Kubernetes release a version spec means. `1.37.1` (and a
// pre-release such as `1.38.0-alpha.0`) is itself; `1.37` and `1.37.x` mean the
// newest patch release of 1.37 that the sources can deliver, or, for a minor
// with no release yet, its newest pre-release (release qualification runs the
// suites before a release ships). The proxy's version list is incomplete (it
// omits tags nobody has asked it for), so versions above the newest listed one
// are probed one by one until the first the proxy does not know.
import { parseKubeVersion, type KubeVersion } from '../../versions/table.ts';
import { KUBE_MODULE } from './gomod.ts';
import type { GoTool } from './go.ts';

export { DEFAULT_KUBE_VERSION } from '../../versions/table.ts';

/** Stop probing after this many consecutive unknown patches (k8s never skips one; this only bounds a flaky proxy). */
const PROBE_LIMIT = 1;
const PROBE_MAX = 40;

export function isExact(v: KubeVersion): boolean {
  return v.patch !== undefined;
}

const PRE_RELEASE_KINDS = ['alpha', 'beta', 'rc'] as const;
const VERSION_RE = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-(alpha|beta|rc)\.(\d+))?$/;

/** Semver order for the versions Kubernetes tags: numbers, then alpha < beta < rc < the release. */
export function compareVersions(a: string, b: string): number {
  const key = (v: string): number[] => {
    const m = VERSION_RE.exec(v);
    if (!m) return v.replace(/^v/, '').split('.').map(Number);
    const pre = m[4] ? [PRE_RELEASE_KINDS.indexOf(m[4] as (typeof PRE_RELEASE_KINDS)[number]), Number(m[5])] : [3, 0];
    return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0), ...pre];
  };
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < Math.max(ka.length, kb.length); i++) {
    const d = (ka[i] ?? 0) - (kb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function isPreRelease(version: string): boolean {
  return VERSION_RE.exec(version)?.[4] !== undefined;
}

/** Release versions (no pre-releases) of one vX.Y line, newest first. */
export function patchesOf(versions: string[], minor: number, major = 1): string[] {
  const re = new RegExp(`^v${major}\\.${minor}\\.\\d+$`);
  return versions.filter((v) => re.test(v)).sort((a, b) => compareVersions(b, a));
}

/**
 * Every release of `module` in the vMAJOR.MINOR line the proxy knows, newest
 * first: the listed ones plus those found by probing the patches above the
 * newest listed, up to the first the proxy does not know.
 */
export async function releasesOf(go: GoTool, module: string, major: number, minor: number): Promise<string[]> {
  const listed = patchesOf(await go.listVersions(module), minor, major);
  const found = new Set(listed);
  let patch = listed.length > 0 ? Number(listed[0]!.split('.')[2]) + 1 : 0;
  let misses = 0;
  while (misses < PROBE_LIMIT && patch < PROBE_MAX) {
    const text = `v${major}.${minor}.${patch}`;
    if (await go.info(module, text)) {
      found.add(text);
      misses = 0;
    } else {
      misses++;
    }
    patch++;
  }
  return [...found].sort((a, b) => compareVersions(b, a));
}

/** Pre-releases of vMAJOR.MINOR.0 (alpha, beta, rc), newest first. */
export function preReleasesOf(versions: string[], minor: number, major = 1): string[] {
  const re = new RegExp(`^v${major}\\.${minor}\\.0-(alpha|beta|rc)\\.\\d+$`);
  return versions.filter((v) => re.test(v)).sort((a, b) => compareVersions(b, a));
}

/**
 * Every pre-release of vMAJOR.MINOR.0 the proxy knows, newest first: the listed
 * ones, plus, for each of alpha, beta and rc, those found by probing upwards from
 * the newest listed of that kind (or .0) to the first the proxy does not know.
 */
export async function preReleasesProbed(go: GoTool, module: string, major: number, minor: number): Promise<string[]> {
  const found = new Set(preReleasesOf(await go.listVersions(module), minor, major));
  for (const kind of PRE_RELEASE_KINDS) {
    const base = `v${major}.${minor}.0-${kind}.`;
    const listed = [...found].filter((v) => v.startsWith(base)).map((v) => Number(v.slice(base.length)));
    for (let n = listed.length ? Math.max(...listed) + 1 : 0; n < PROBE_MAX; n++) {
      if (!(await go.info(module, `${base}${n}`))) break;
      found.add(`${base}${n}`);
    }
  }
  return [...found].sort((a, b) => compareVersions(b, a));
}

/**
 * Candidate exact Kubernetes versions for a spec, newest first. For an exact
 * spec (a pre-release too), the version itself. A minor spec needs the proxy:
 * its releases, or its pre-releases when it has no release yet; [] when the
 * proxy answers nothing (the caller then falls back to the cache).
 */
export async function candidateVersions(spec: KubeVersion | string, go: GoTool): Promise<string[]> {
  const v = typeof spec === 'string' ? parseKubeVersion(spec) : spec;
  if (v.patch !== undefined) return [v.text];
  const releases = await releasesOf(go, KUBE_MODULE, 1, v.minor);
  return releases.length > 0 ? releases : preReleasesProbed(go, KUBE_MODULE, 1, v.minor);
}
