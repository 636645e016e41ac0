import { describe, expect, test } from '@jest/globals';
import { candidateVersions, compareVersions, isPreRelease, patchesOf, preReleasesOf, releasesOf } from './versions.ts';
import { fakeGo } from './testdata/fake-go.ts';

describe('version specs', () => {
  test('an exact spec is its own only candidate and needs no proxy', async () => {
    const go = fakeGo({ known: [] });
    expect(await candidateVersions('1.37.1', go)).toEqual(['v1.37.1']);
    expect(go.calls).toEqual([]);
  });

  test('a minor spec finds patches the incomplete proxy list omits by probing above the newest listed one', async () => {
    // What proxy.golang.org answered in 2026-11: the list stops at v1.36.3 and has no 1.37 at all.
    const go = fakeGo({
      listed: ['v1.35.4', 'v1.36.1', 'v1.36.3'],
      known: ['v1.36.4', 'v1.36.5', 'v1.37.0', 'v1.37.1', 'v1.37.2'],
    });
    expect(await candidateVersions('1.37', go)).toEqual(['v1.37.2', 'v1.37.1', 'v1.37.0']);
    expect(await candidateVersions('v1.36.x', go)).toEqual(['v1.36.5', 'v1.36.4', 'v1.36.3', 'v1.36.1']);
  });

  test('probing stops at the first patch the proxy does not know', async () => {
    const go = fakeGo({ listed: [], known: ['v2.3.0', 'v2.3.1', 'v2.3.3'] });
    expect(await releasesOf(go, 'github.com/containerd/containerd/v2', 2, 3)).toEqual(['v2.3.1', 'v2.3.0']);
  });

  test('orders versions numerically, not as text', () => {
    expect(['v1.37.10', 'v1.37.9', 'v1.37.2'].sort(compareVersions)).toEqual(['v1.37.2', 'v1.37.9', 'v1.37.10']);
    expect(patchesOf(['v1.37.0', 'v1.37.1-rc.0', 'v1.36.9', 'v1.37.3'], 37)).toEqual(['v1.37.3', 'v1.37.0']);
  });
});

describe('pre-releases (release qualification before a minor ships)', () => {
  test('semver order: alpha < beta < rc < the release, numbers compared as numbers', () => {
    const shuffled = ['v1.38.0', 'v1.38.0-rc.0', 'v1.38.0-alpha.10', 'v1.37.9', 'v1.38.0-beta.0', 'v1.38.0-alpha.2'];
    expect(shuffled.sort(compareVersions)).toEqual([
      'v1.37.9',
      'v1.38.0-alpha.2',
      'v1.38.0-alpha.10',
      'v1.38.0-beta.0',
      'v1.38.0-rc.0',
      'v1.38.0',
    ]);
    expect([isPreRelease('v1.38.0-alpha.0'), isPreRelease('v1.38.0')]).toEqual([true, false]);
    expect(preReleasesOf(['v1.38.0-alpha.0', 'v1.38.0-beta.1', 'v1.37.1', 'v1.38.1-alpha.0'], 38)).toEqual([
      'v1.38.0-beta.1',
      'v1.38.0-alpha.0',
    ]);
  });

  test('an exact pre-release is its own candidate; a minor with no release picks its pre-releases, probed per kind', async () => {
    const go = fakeGo({ listed: ['v1.37.1'], known: ['v1.38.0-alpha.0', 'v1.38.0-alpha.1'] });
    expect(await candidateVersions('1.38.0-alpha.0', go)).toEqual(['v1.38.0-alpha.0']);
    expect(go.calls).toEqual([]);
    expect(await candidateVersions('1.38', go)).toEqual(['v1.38.0-alpha.1', 'v1.38.0-alpha.0']);
    // alpha probed up to the first unknown, then beta.0 and rc.0 once each.
    expect(go.calls.filter((c) => c.startsWith('info') && c.includes('-'))).toEqual([
      'info k8s.io/kubernetes@v1.38.0-alpha.0',
      'info k8s.io/kubernetes@v1.38.0-alpha.1',
      'info k8s.io/kubernetes@v1.38.0-alpha.2',
      'info k8s.io/kubernetes@v1.38.0-beta.0',
      'info k8s.io/kubernetes@v1.38.0-rc.0',
    ]);
  });

  test('once a minor has a release, its pre-releases are no longer candidates', async () => {
    const go = fakeGo({ listed: ['v1.38.0-rc.1'], known: ['v1.38.0'] });
    expect(await candidateVersions('1.38', go)).toEqual(['v1.38.0']);
  });
});
