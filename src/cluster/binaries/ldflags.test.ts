import { describe, expect, test } from '@jest/globals';
import { kubeLdflags, versionVars } from './ldflags.ts';

describe('kube version stamping', () => {
  test('sets the version variables as hack/lib/version.sh does for a tagged release', () => {
    expect(versionVars({ version: 'v1.37.1', buildDate: '2026-09-23T17:06:22.123Z' })).toEqual({
      gitVersion: 'v1.37.1',
      gitMajor: '1',
      gitMinor: '37',
      gitCommit: '',
      gitTreeState: 'archive',
      buildDate: '2026-09-23T17:06:22Z',
    });
  });

  test('stamps both component-base (kubelet, apiserver) and client-go (kubectl) version packages', () => {
    const flags = kubeLdflags({ version: 'v1.36.3', buildDate: '2026-07-22T18:07:38Z' });
    expect(flags).toContain("-X 'k8s.io/component-base/version.gitVersion=v1.36.3'");
    expect(flags).toContain("-X 'k8s.io/client-go/pkg/version.gitVersion=v1.36.3'");
    expect(flags).toContain("-X 'k8s.io/component-base/version.gitMinor=36'");
    expect(flags).toContain("-X 'k8s.io/client-go/pkg/version.buildDate=2026-07-22T18:07:38Z'");
    expect(flags.match(/-X /g)).toHaveLength(12);
    expect(flags.startsWith('-s -w ')).toBe(true);
  });

  test('a pre-release keeps its suffix, and its minor gets the "+" version.sh gives it', () => {
    expect(versionVars({ version: 'v1.38.0-alpha.0', buildDate: '2026-10-01T00:00:00Z' })).toMatchObject({
      gitVersion: 'v1.38.0-alpha.0',
      gitMajor: '1',
      gitMinor: '38+',
    });
  });

  test('refuses to stamp a version that is not an exact release', () => {
    expect(() => kubeLdflags({ version: 'v1.37', buildDate: '2026-01-01T00:00:00Z' })).toThrow(
      /expected an exact release/,
    );
  });
});
