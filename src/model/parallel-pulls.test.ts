// KEP-2535's striped locks under maxParallelImagePulls (k/k #138935, fix #138937): which kubelets
// carry the fix, which keys index past the set, and that the hash is Go's FNV-1.
import { describe, expect, test } from '@jest/globals';
import {
  carriesStripedLockFix,
  fnv1_32,
  imageNameForLockIndex,
  kep2535LockPanic,
  pullsInFlight,
  stripedLockIndex,
  stripedLocks,
} from './parallel-pulls.ts';

describe('fnv1_32', () => {
  // Values printed by Go: h := fnv.New32(); h.Write([]byte(k)); h.Sum32().
  test.each([
    ['', 2166136261],
    ['a', 84696446],
    ['reg.test:5000/team/app:v1', 3373860259],
    ['sha256:3f2a', 3150757634],
    ['ünïcode', 224305467],
  ])('%j as Go hash/fnv New32 sums it', (key, sum) => {
    expect(fnv1_32(key)).toBe(sum);
  });
});

describe('which kubelets carry #138937', () => {
  test.each([
    ['v1.35.4', false],
    ['v1.35.8', false],
    ['v1.36.5', false],
    ['v1.37.0', true],
    ['v1.37.1', true],
    ['v1.38.0-alpha.0', true],
  ])('%s: %s', (v, fixed) => {
    expect(carriesStripedLockFix(v).fixed).toBe(fixed);
  });

  test('a 1.36 patch newer than any read is assumed unfixed, and says so', () => {
    expect(carriesStripedLockFix('v1.36.7')).toEqual({
      fixed: false,
      because: expect.stringMatching(/no 1\.36 patch read carries #138937 \(read: v1\.36\.5\)/),
    });
  });

  test('unclamped sets hold 31 mutexes but reduce keys modulo the limit; the fix clamps both', () => {
    expect(stripedLocks('v1.36.5', 64)).toMatchObject({ length: 31, modulo: 64, sizing: 'unclamped' });
    expect(stripedLocks('v1.37.1', 64)).toMatchObject({ length: 31, modulo: 31, sizing: 'clamped' });
    expect(stripedLocks('v1.36.5', undefined)).toMatchObject({ length: 1, modulo: 1 });
    expect(stripedLocks('v1.36.5', 8)).toMatchObject({ length: 8, modulo: 8 });
  });
});

describe('kep2535LockPanic', () => {
  const base = { serializeImagePulls: false, maxParallelImagePulls: 64, imageRef: 'sha256:3f2a' };

  test('one pull of a name indexing past the set takes an unfixed kubelet down, after the plugin ran', () => {
    expect(stripedLockIndex('a', 64)).toBe(62);
    expect(kep2535LockPanic({ ...base, kubelet: 'v1.36.5', image: 'a' })).toMatchObject({
      panics: true,
      at: { lock: 'intent', key: 'a', index: 62, length: 31 },
      message: 'index out of range [62] with length 31',
      pluginExecdFirst: true,
    });
  });

  test('the fixed kubelet, the gate off, or serial pulls: no panic', () => {
    expect(kep2535LockPanic({ ...base, kubelet: 'v1.37.1', image: 'a' }).panics).toBe(false);
    expect(kep2535LockPanic({ ...base, kubelet: 'v1.36.5', image: 'a', gateEnabled: false }).panics).toBe(false);
    expect(kep2535LockPanic({ ...base, kubelet: 'v1.34.5', image: 'a' }).because).toMatch(/is off/);
    expect(
      kep2535LockPanic({
        ...base,
        kubelet: 'v1.36.5',
        image: 'a',
        serializeImagePulls: true,
        maxParallelImagePulls: undefined,
      }).panics,
    ).toBe(false);
  });

  test('a name within the set can still panic on its image ID, after the pull', () => {
    const imageRef = ['sha256:a', 'sha256:b', 'sha256:c', 'sha256:d'].find((r) => stripedLockIndex(r, 64) >= 31)!;
    const image = imageNameForLockIndex('reg.test:5000/x', 'sha256:3f2a', 64, 'within-the-set');
    expect(kep2535LockPanic({ ...base, kubelet: 'v1.36.5', image, imageRef })).toMatchObject({
      panics: true,
      at: { lock: 'pulled-record', key: imageRef },
    });
  });

  test('imageNameForLockIndex finds a tag on either side, deterministically', () => {
    const past = imageNameForLockIndex('reg.test:5000/x', 'sha256:3f2a', 64, 'past-the-set');
    const within = imageNameForLockIndex('reg.test:5000/x', 'sha256:3f2a', 64, 'within-the-set');
    expect(stripedLockIndex(past, 64)).toBeGreaterThanOrEqual(31);
    expect(stripedLockIndex(within, 64)).toBeLessThan(31);
    expect(imageNameForLockIndex('reg.test:5000/x', 'sha256:3f2a', 64, 'past-the-set')).toBe(past);
    expect(() => imageNameForLockIndex('reg.test:5000/x', 'sha256:3f2a', 31, 'past-the-set')).toThrow(/cannot index/);
  });
});

describe('pulls in flight (KEP-3673 maxParallelImagePulls)', () => {
  test.each([
    [{ serializeImagePulls: false, maxParallelImagePulls: 5 }, 7, 5],
    [{ serializeImagePulls: false, maxParallelImagePulls: 5 }, 3, 3],
    [{ serializeImagePulls: false }, 7, 7],
    [{ serializeImagePulls: false, maxParallelImagePulls: 0 }, 7, 7],
    [{ serializeImagePulls: true }, 7, 1],
  ])('%j, %i images: at most %i at the registry, every lookup at once at the plugin', (config, images, registry) => {
    const b = pullsInFlight(config, images);
    expect(b.registry).toBe(registry);
    expect(b.plugin).toBe(images);
    expect(b.because).toMatch(/exec'd before the puller/);
  });
});
