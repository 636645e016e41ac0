// Which exact Kubernetes release a version spec means. `1.37.1` is itself;
// `1.37` and `1.37.x` mean the newest patch release of 1.37 that the sources
// can deliver. The proxy's version list is incomplete (it omits tags nobody
// has asked it for), so patches above the newest listed one are probed one by
// one until the first the proxy does not know.
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

export function compareVersions(a: string, b: string): number {
  const pa = a.replace(/^v/, '').split('.').map(Number);
  const pb = b.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
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

/**
 * Candidate exact Kubernetes versions for a spec, newest first. For an exact
 * spec, the version itself. A minor spec needs the proxy; [] when it answers
 * nothing (the caller then falls back to the cache).
 */
export async function candidateVersions(spec: KubeVersion | string, go: GoTool): Promise<string[]> {
  const v = typeof spec === 'string' ? parseKubeVersion(spec) : spec;
  if (v.patch !== undefined) return [v.text];
  return releasesOf(go, KUBE_MODULE, 1, v.minor);
}
