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
});
