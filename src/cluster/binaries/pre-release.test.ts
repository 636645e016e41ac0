// A pre-release's staging modules the proxy refuses are taken at the previous
// minor's newest release, and the wrapper go.mod pins exactly those.
import { describe, expect, test } from '@jest/globals';
import type { GoTool } from './go.ts';
import { wrapperGoMod } from './gomod.ts';
import { NotBuildableError, preReleaseSubstitutes } from './source-build.ts';

/** A proxy that serves exactly these module@version infos and lists nothing (as for k8s.io staging here). */
function proxyKnowing(known: string[]): GoTool {
  const set = new Set(known);
  return {
    listVersions: async () => [],
    info: async (module: string, version: string) =>
      set.has(`${module}@${version}`) ? { version, time: '2026-10-01T00:00:00Z' } : undefined,
  } as unknown as GoTool;
}

describe('preReleaseSubstitutes', () => {
  const staging = ['k8s.io/api', 'k8s.io/cli-runtime', 'k8s.io/cri-streaming'];

  test('only refused modules are substituted, each by the newest release of the previous minor', async () => {
    const go = proxyKnowing([
      'k8s.io/api@v0.38.0-alpha.0',
      'k8s.io/cli-runtime@v0.37.0',
      'k8s.io/cli-runtime@v0.37.1',
      'k8s.io/cri-streaming@v0.37.0',
    ]);
    const substitutes = await preReleaseSubstitutes(go, staging, 'v1.38.0-alpha.0');
    expect(substitutes).toEqual({ 'k8s.io/cli-runtime': 'v0.37.1', 'k8s.io/cri-streaming': 'v0.37.0' });
    const goMod = wrapperGoMod(
      { go: '1.26.0', godebug: [], staging, otherReplaces: [], excludes: [] },
      'v1.38.0-alpha.0',
      substitutes,
    );
    expect(goMod).toContain('\tk8s.io/api => k8s.io/api v0.38.0-alpha.0\n');
    expect(goMod).toContain('\tk8s.io/cli-runtime => k8s.io/cli-runtime v0.37.1\n');
  });

  test('a refused module with no release of the previous minor makes the pre-release unbuildable, saying which', async () => {
    const go = proxyKnowing(['k8s.io/api@v0.38.0-alpha.0', 'k8s.io/cli-runtime@v0.38.0-alpha.0']);
    const err = await preReleaseSubstitutes(go, staging, 'v1.38.0-alpha.0').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotBuildableError);
    expect(String((err as NotBuildableError).detail ?? (err as Error).message)).toMatch(/k8s.io\/cri-streaming/);
  });
});
