// Version specs and the table's defaults: pre-releases parse and keep their
// suffix; a provisional row (a minor with no release) is modelled but never
// becomes a default.
import { describe, expect, test } from '@jest/globals';
import {
  behaviourFor,
  NEWEST_MINOR,
  NEWEST_MODELLED_MINOR,
  newestBehaviour,
  parseKubeVersion,
  SUPPORTED_MINORS,
} from './table.ts';

describe('parseKubeVersion', () => {
  test.each([
    ['1.37', { minor: 37, text: 'v1.37' }],
    ['v1.37.x', { minor: 37, text: 'v1.37' }],
    ['1.37.1', { minor: 37, patch: 1, text: 'v1.37.1' }],
    ['1.38.0-alpha.0', { minor: 38, patch: 0, pre: 'alpha.0', text: 'v1.38.0-alpha.0' }],
    ['v1.38.0-rc.2', { minor: 38, patch: 0, pre: 'rc.2', text: 'v1.38.0-rc.2' }],
    // What a kubelet built from a tree between tags reports, and a distribution's suffix.
    ['v1.38.0-alpha.0.12+0123abcd', { minor: 38, patch: 0, pre: 'alpha.0', text: 'v1.38.0-alpha.0' }],
    ['v1.37.1-eks-abcdef', { minor: 37, patch: 1, text: 'v1.37.1' }],
  ])('%s', (text, want) => {
    expect(parseKubeVersion(text)).toEqual({ major: 1, ...want });
  });

  test('a pre-release needs a patch; anything else is refused with the forms it takes', () => {
    expect(() => parseKubeVersion('1.38-alpha.0')).toThrow(/not a Kubernetes version/);
    expect(() => parseKubeVersion('2.0')).toThrow(/not a Kubernetes version/);
  });
});

describe('provisional rows', () => {
  test('1.38 is modelled, provisionally, and no default picks it', () => {
    expect(SUPPORTED_MINORS).toContain(38);
    expect(behaviourFor('1.38.0-alpha.0').provisional).toMatch(/no 1.38 release/);
    expect(NEWEST_MODELLED_MINOR).toBe(38);
    expect(NEWEST_MINOR).toBe(37);
    expect(newestBehaviour().provisional).toBeUndefined();
  });

  test('a version beyond every row names the range, provisional rows included', () => {
    expect(() => behaviourFor('1.40')).toThrow(/1\.33 to 1\.38/);
  });
});

describe('rows read for the field paths (issue 30)', () => {
  const rows = SUPPORTED_MINORS.map((m) => behaviourFor(`1.${m}`));
  test('ImageVolume: off before 1.35, on (beta) from 1.35; GA only from v1.38.0-beta.0', () => {
    expect(rows.map((r) => [r.minor, r.imageVolume.enabledByDefault, r.imageVolume.stage])).toEqual([
      [33, false, 'beta'],
      [34, false, 'beta'],
      [35, true, 'beta'],
      [36, true, 'beta'],
      [37, true, 'beta'],
      [38, true, 'beta'],
    ]);
  });

  test('image volumes are looked up on every SyncPod through 1.36, only when a container starts from 1.37 (k/k #138655)', () => {
    expect(rows.map((r) => [r.minor, r.imageVolume.lookupEverySync])).toEqual([
      [33, true],
      [34, true],
      [35, true],
      [36, true],
      [37, false],
      [38, false],
    ]);
  });

  test('#138937 (clamped striped locks) is in 1.37.0+ and 1.38 only', () => {
    expect(rows.map((r) => r.stripedLockFix.fixedFromPatch)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      0,
      0,
    ]);
  });

  test('no release records preloaded images; the token cache knows the SA UID from 1.34; kuberc policy from kubectl 1.35', () => {
    expect(rows.every((r) => !r.preloadedImageRecords)).toBe(true);
    expect(rows.map((r) => r.tokenCacheKeyedByServiceAccountUid)).toEqual([false, true, true, true, true, true]);
    expect(rows.map((r) => r.kubercPluginPolicy)).toEqual([
      'absent',
      'absent',
      'name',
      'command',
      'command',
      'command',
    ]);
  });
});
