import { describe, expect, test } from '@jest/globals';
import { candidateVersions, compareVersions, patchesOf, releasesOf } from './versions.ts';
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
