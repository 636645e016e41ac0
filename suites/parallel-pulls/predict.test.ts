import { describe, expect, test } from '@jest/globals';
import { STRIPED_LOCKS_MAX, stripedLockIndex } from '../../src/model/parallel-pulls.ts';
import { burstPods, LIMIT_IMAGES, limitHold, limitPods, LOCK_LIMIT } from './plan.ts';
import {
  imageRefWithinTheSet,
  judgeLimit,
  knownBug,
  predictBurst,
  predictLimit,
  predictLockPods,
  withinBounds,
} from './predict.ts';

// An image ID (sha256 of a config) that indexes within the set modulo 64.
const imageRef = (() => {
  for (let i = 0; ; i++) {
    const ref = `sha256:${i.toString(16).padStart(64, '0')}`;
    if (imageRefWithinTheSet(ref)) return ref;
  }
})();

describe('parallel-pulls predictions', () => {
  test('the burst: one exec per image when the lookups overlap, as few as one for the registry', () => {
    const p = predictBurst(burstPods('x1.burst.pp.test', 'x1').map((b) => b.image));
    expect([p.value, p.fewest, p.most]).toEqual([3, 1, 3]);
    expect(p.because).toMatch(/serializeImagePulls: false, maxParallelImagePulls: 5: 6 lookup\(s\) of 3 image\(s\)/);
    expect(p.because).toMatch(/serializeImagePulls does not change it/);
    expect(withinBounds(p, 4)).toBe(false);
    expect(withinBounds(p, 1)).toBe(true);
  });

  test.each(['1.37.1', '1.38.0-alpha.0'])('kubelet %s carries #138937: both lock pods run', (v) => {
    const pods = predictLockPods(v, 'x1.locks.pp.test', imageRef, 'x1');
    expect(pods.map((p) => p.seen.value)).toEqual([
      { kubelet: 'lives', panic: null, execs: 1 },
      { kubelet: 'lives', panic: null, execs: 1 },
    ]);
    expect(pods[0]!.fix.fixed).toBe(true);
    expect(knownBug(v, pods[0]!.fix)).toBeUndefined();
  });

  test.each(['1.35.4', '1.36.5', '1.36.7'])('kubelet %s has no fix: the name past the set crashes it', (v) => {
    const [within, past] = predictLockPods(v, 'x1.locks.pp.test', imageRef, 'x1');
    expect(within!.seen.value).toEqual({ kubelet: 'lives', panic: null, execs: 1 });
    const index = stripedLockIndex(past!.image, LOCK_LIMIT);
    expect(index).toBeGreaterThanOrEqual(STRIPED_LOCKS_MAX);
    expect(past!.seen.value).toEqual({
      kubelet: 'exits',
      panic: `index out of range [${index}] with length ${STRIPED_LOCKS_MAX}`,
      execs: 1,
    });
    expect(past!.seen.because).toMatch(/intent lock \(RecordPullIntent, before the pull\) .*\(k\/k #138935/);
    expect(knownBug(v, past!.fix)).toMatch(/known kubelet bug k\/k #138935 .*maxParallelImagePulls at 31 or below/);
  });

  test('the limit: N + 2 images, at most N at the registry; judged only when N + 1 pods were ready at once', () => {
    const p = predictLimit(limitPods('x1.limit.pp.test', 'x1').length);
    expect(LIMIT_IMAGES).toBe(7);
    expect([p.value, p.bound, p.judgeableFrom]).toEqual([5, 5, 6]);
    expect(p.because).toMatch(/7 distinct images .*5 token\(s\) .*up to 7 exec\(s\) at once, not bounded/);
    expect(judgeLimit(p, { atRegistry: 5, readyAtOnce: 7 })).toEqual({ agree: true });
    expect(judgeLimit(p, { atRegistry: 6, readyAtOnce: 7 })).toEqual({ agree: false });
    // Five ready at once cannot tell a limit of five from none: skipped, never passed.
    expect(judgeLimit(p, { atRegistry: 5, readyAtOnce: 5 })).toEqual({
      skip: expect.stringMatching(/at most 5 pod\(s\) were ready to pull at once.*fewer than 6.*a limit of 5/),
    });
  });

  test('the front holds authenticated manifest requests only', () => {
    expect(limitHold({ path: '/v2/pp/limit-0/manifests/v1', credential: 'pp' })).toBe(3000);
    expect(limitHold({ path: '/v2/pp/limit-0/manifests/v1', credential: 'none' })).toBe(0);
    expect(limitHold({ path: '/v2/pp/limit-0/blobs/sha256:ab', credential: 'pp' })).toBe(0);
  });
});
