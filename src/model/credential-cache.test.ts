import { describe, expect, test } from '@jest/globals';
import { CredentialCacheModel, GLOBAL_CACHE_KEY } from './credential-cache.ts';

const A = 'a.reg.test:5000/team/app';
const A2 = 'a.reg.test:5000/team/other';
const B = 'b.reg.test:5000/team/app';

describe('credential cache model', () => {
  test('Image entries serve the same repository only', () => {
    const m = new CredentialCacheModel(60_000);
    expect(m.pull(A, 0, { cacheKeyType: 'Image' }).invoked).toBe(true);
    expect(m.pull(A, 1000, { cacheKeyType: 'Image' }).invoked).toBe(false);
    expect(m.pull(A2, 2000, { cacheKeyType: 'Image' }).invoked).toBe(true);
  });

  test('Registry entries serve every image of that host:port, not another registry', () => {
    const m = new CredentialCacheModel(60_000);
    m.pull(A, 0, { cacheKeyType: 'Registry' });
    expect(m.pull(A2, 1000, { cacheKeyType: 'Registry' })).toMatchObject({
      invoked: false,
      hit: { key: 'a.reg.test:5000' },
    });
    expect(m.pull(B, 2000, { cacheKeyType: 'Registry' }).invoked).toBe(true);
  });

  test('a Global entry serves every image of the provider', () => {
    const m = new CredentialCacheModel(60_000);
    m.pull(A, 0, { cacheKeyType: 'Global' });
    expect(m.pull(B, 1000, { cacheKeyType: 'Global' })).toMatchObject({
      invoked: false,
      hit: { key: GLOBAL_CACHE_KEY },
    });
  });

  test('cacheDuration 0s, or none with a default of 0s, stores nothing; none uses the default', () => {
    const zero = new CredentialCacheModel(60_000);
    zero.pull(A, 0, { cacheKeyType: 'Image', cacheDurationMs: 0 });
    expect(zero.pull(A, 10, { cacheKeyType: 'Image' }).invoked).toBe(true);
    const noDefault = new CredentialCacheModel(0);
    noDefault.pull(A, 0, { cacheKeyType: 'Image' });
    expect(noDefault.lookup(A, 10)).toBeUndefined();
    const withDefault = new CredentialCacheModel(5000);
    expect(withDefault.pull(A, 0, { cacheKeyType: 'Image' })).toMatchObject({ stored: { expiresAt: 5000 } });
  });

  test('an entry lives until now passes its expiry', () => {
    const m = new CredentialCacheModel(0);
    m.pull(A, 0, { cacheKeyType: 'Image', cacheDurationMs: 4000 });
    expect(m.pull(A, 4000, { cacheKeyType: 'Image', cacheDurationMs: 4000 }).invoked).toBe(false);
    expect(m.pull(A, 4001, { cacheKeyType: 'Image', cacheDurationMs: 4000 }).invoked).toBe(true);
  });

  test('concurrent lookups of one image share one exec, even with cacheDuration 0s; a live entry serves them all', () => {
    const m = new CredentialCacheModel(0);
    expect(m.pullTogether(A, 0, 3, { cacheKeyType: 'Image', cacheDurationMs: 0 }).execs).toBe(1);
    expect(m.pullTogether(A, 10, 3, { cacheKeyType: 'Image', cacheDurationMs: 0 }).execs).toBe(1);
    m.pull(A, 20, { cacheKeyType: 'Image', cacheDurationMs: 4000 });
    expect(m.pullTogether(A, 30, 3, { cacheKeyType: 'Image', cacheDurationMs: 0 }).execs).toBe(0);
  });

  test('an invalid cacheKeyType stores nothing', () => {
    const m = new CredentialCacheModel(60_000);
    expect(m.pull(A, 0, { cacheKeyType: 'ServiceAccount' }).reason).toMatch(/invalid/);
    expect(m.lookup(A, 1)).toBeUndefined();
  });

  test('a burst of several images execs once per image when all arrive together, however they are cached', () => {
    const m = new CredentialCacheModel(0);
    const burst = [A, A, A2, B];
    expect(m.burst(burst, 0, { cacheKeyType: 'Image', cacheDurationMs: 60_000 })).toMatchObject({
      together: 3,
      fewest: 3,
      most: 3,
    });
    // Spread out, a Registry entry of a.reg.test serves A2 after A, so 2 registries need 2 execs.
    expect(m.burst(burst, 0, { cacheKeyType: 'Registry', cacheDurationMs: 60_000 })).toMatchObject({
      together: 3,
      fewest: 2,
      most: 3,
    });
    expect(m.burst(burst, 0, { cacheKeyType: 'Global', cacheDurationMs: 60_000 }).fewest).toBe(1);
    expect(m.burst(burst, 0, { cacheKeyType: 'Global', cacheDurationMs: 0 }).fewest).toBe(3);
  });

  test('a live entry takes its images out of the burst; the reason names the pull mode as irrelevant', () => {
    const m = new CredentialCacheModel(0);
    m.pull(A, 0, { cacheKeyType: 'Registry', cacheDurationMs: 60_000 });
    const d = m.burst([A, A2, B], 10, { cacheKeyType: 'Registry', cacheDurationMs: 60_000 });
    expect(d).toMatchObject({ together: 1, fewest: 1, most: 1 });
    expect(d.because).toMatch(/serializeImagePulls does not change it/);
  });
});
