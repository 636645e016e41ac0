// The cache suite's plans against its own models, without a cluster: what
// each case predicts (each value checkable by hand against the cache rules in
// src/model/credential-cache.ts), that the predictions survive pods that run
// somewhat late on a loaded machine, and that each case's images are matched
// by its own provider only (all share one kubelet config).
import { describe, expect, test } from '@jest/globals';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { providersForImage } from '../../src/matching/providers.ts';
import {
  ALL_PLANS,
  expiryPulls,
  glob,
  HOST_LABELS,
  image,
  keyPulls,
  PLANS,
  REPOSITORIES,
  zeroPulls,
  type Plan,
  type Pull,
} from './plan.ts';
import {
  ALL_FAILED,
  predictPulls,
  predictRotation,
  predictSingleflight,
  rotationAgrees,
  showRotation,
  slippedSchedule,
  type RotationSeen,
  type Window,
} from './predict.ts';

const execs = (p: Plan, pulls: Pull[]) => predictPulls(p, pulls).value.map((x) => x.execs);
/** Each lookup between `fromLagMs` and `toLagMs` after its planned time. */
const late = (pulls: Pull[], fromLagMs: number, toLagMs: number): Window[] =>
  pulls.map((x) => ({ fromMs: x.atMs + fromLagMs, toMs: x.atMs + toLagMs }));

describe('cache suite predictions', () => {
  test('cacheKeyType decides which later pulls hit: Image the same image, Registry its registry, Global every image', () => {
    // Pulls: first, same image, another image on the registry, an image on another registry.
    expect(execs(PLANS.image, keyPulls(PLANS.image))).toEqual([1, 0, 1, 1]);
    expect(execs(PLANS.registry, keyPulls(PLANS.registry))).toEqual([1, 0, 0, 1]);
    expect(execs(PLANS.global, keyPulls(PLANS.global))).toEqual([1, 0, 0, 0]);
    expect(predictPulls(PLANS.registry, keyPulls(PLANS.registry)).because).toContain(
      'stores key a.reg.cache.test for 300s (the response)',
    );
  });

  test('cacheDuration 0s in the response, or no cacheDuration with defaultCacheDuration 0s: nothing is cached', () => {
    expect(execs(PLANS.zeroResponse, zeroPulls(PLANS.zeroResponse))).toEqual([1, 1]);
    expect(execs(PLANS.zeroDefault, zeroPulls(PLANS.zeroDefault))).toEqual([1, 1]);
    expect(predictPulls(PLANS.zeroResponse, zeroPulls(PLANS.zeroResponse)).because).toContain(
      'the response says cacheDuration 0s',
    );
    expect(predictPulls(PLANS.zeroDefault, zeroPulls(PLANS.zeroDefault)).because).toContain(
      'no cacheDuration and defaultCacheDuration 0s',
    );
  });

  test('the entry lives 8s, from the response or from defaultCacheDuration: a hit at 4s, an exec at 16s', () => {
    for (const p of [PLANS.defaultDuration, PLANS.expiry]) {
      expect(expiryPulls(p).map((x) => x.atMs)).toEqual([0, 4000, 16_000]);
      expect(execs(p, expiryPulls(p))).toEqual([1, 0, 1]);
    }
    expect(predictPulls(PLANS.defaultDuration, expiryPulls(PLANS.defaultDuration)).because).toContain(
      'for 8s (defaultCacheDuration)',
    );
    expect(predictPulls(PLANS.expiry, expiryPulls(PLANS.expiry)).because).toContain('for 8s (the response)');
  });

  test('the sequences still hold when each pod is created up to 2s late and looked up up to 5s after that', () => {
    for (const p of [PLANS.image, PLANS.registry, PLANS.global]) {
      expect(slippedSchedule(p, keyPulls(p), late(keyPulls(p), 2000, 7000))).toBeUndefined();
    }
    for (const p of [PLANS.zeroResponse, PLANS.zeroDefault]) {
      expect(slippedSchedule(p, zeroPulls(p), late(zeroPulls(p), 2000, 7000))).toBeUndefined();
    }
  });

  test('an expiry case slips only when the "within" lookup may have come after the 8s life, or the "after" one inside it', () => {
    const p = PLANS.expiry;
    const pulls = expiryPulls(p);
    // The second pod is created at once after the first exec, not at its planned 4s.
    expect(
      slippedSchedule(p, pulls, [
        { fromMs: 0, toMs: 0 },
        { fromMs: 200, toMs: 8000 },
        { fromMs: 16_000, toMs: 21_000 },
      ]),
    ).toBeUndefined();
    const slipped = slippedSchedule(p, pulls, [
      { fromMs: 0, toMs: 0 },
      { fromMs: 200, toMs: 8100 },
      { fromMs: 16_000, toMs: 21_000 },
    ]);
    expect(slipped).toMatch(/^schedule slipped, .*again within 8\.0s planned \+4\.0s, looked up in \+0\.2s…\+8\.1s/);
    expect(
      slippedSchedule(p, pulls, [
        { fromMs: 0, toMs: 0 },
        { fromMs: 200, toMs: 3000 },
        { fromMs: 7000, toMs: 9000 },
      ]),
    ).toBeDefined();
  });

  test('rotation: the Registry entry lives 20s; the kubelet recovers after it, within the 10s tolerance', () => {
    const { expiryMs, prediction } = predictRotation(
      PLANS.rotation,
      image(PLANS.rotation, 'a', REPOSITORIES.one).request,
    );
    expect(expiryMs).toBe(20_000);
    expect(prediction.value).toEqual({
      whileCached: ALL_FAILED,
      reinvokedAtMs: 20_000,
      recoveredAtMs: 20_000,
      rotatedAtMs: NaN,
    });
    expect(prediction.because).toContain('stores key a.rot.cache.test for 20s (the response)');
    const predicted = { ...prediction.value, rotatedAtMs: 3000 };
    const seen: RotationSeen = {
      whileCached: ALL_FAILED,
      reinvokedAtMs: 20_600,
      recoveredAtMs: 24_000,
      rotatedAtMs: 3000,
    };
    expect(rotationAgrees(predicted, seen)).toBe(true);
    expect(rotationAgrees(predicted, { ...seen, recoveredAtMs: 30_001 })).toBe(false);
    expect(rotationAgrees(predicted, { ...seen, reinvokedAtMs: 19_000 })).toBe(false);
    expect(rotationAgrees(predicted, { ...seen, recoveredAtMs: null })).toBe(false);
    expect(rotationAgrees(predicted, { ...seen, whileCached: '1 succeeded with the old password, 3 failed' })).toBe(
      false,
    );
    const show = showRotation(expiryMs);
    expect(show(prediction.value)).toBe('pulls fail until expiry, re-exec not before +20.0s, recovery by +30.0s');
    expect(show(seen)).toBe(
      `pulls after the rotation (+3.0s): ${ALL_FAILED}; re-exec at +20.6s (17.6s after the rotation, predicted ≥ 17.0s); ` +
        'first good pull at +24.0s (21.0s after the rotation, predicted 17.0s–27.0s)',
    );
  });

  test('rotation needs a plan whose answer is cached', () => {
    expect(() => predictRotation(PLANS.zeroResponse, image(PLANS.zeroResponse, 'a', REPOSITORIES.one).request)).toThrow(
      /stores nothing/,
    );
  });

  test('singleflight: pods created together share one exec, even with cacheDuration 0s', () => {
    const prediction = predictSingleflight(
      PLANS.singleflight,
      image(PLANS.singleflight, 'a', REPOSITORIES.one).request,
      3,
    );
    expect(prediction.value).toBe(1);
    expect(prediction.because).toContain('3 concurrent lookups of a.sf.cache.test/cache/one share one exec');
  });

  test("every case's images are exec'd by its own provider only, under the one config all cases share", () => {
    const config = {
      apiVersion: 'kubelet.config.k8s.io/v1',
      kind: 'CredentialProviderConfig',
      providers: ALL_PLANS.map((p) => ({
        name: p.name,
        apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
        matchImages: [glob(p)],
        defaultCacheDuration: p.defaultCacheDuration,
      })),
    } as CredentialProviderConfig;
    for (const p of ALL_PLANS) {
      for (const label of HOST_LABELS) {
        for (const repository of Object.values(REPOSITORIES)) {
          expect({
            image: image(p, label, repository).ref,
            invoked: providersForImage(config, image(p, label, repository).ref).invoked,
          }).toEqual({ image: image(p, label, repository).ref, invoked: [p.name] });
        }
      }
    }
  });
});
