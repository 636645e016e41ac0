import { describe, expect, test } from '@jest/globals';
import type { TokenAttributes } from '../api/credentialprovider/types.ts';
import { behaviourFor } from '../versions/table.ts';
import {
  audienceAllowed,
  DEFAULT_TOKEN_EXPIRATION_SECONDS,
  predictToken,
  predictTokenValidity,
  ServiceAccountTokenModel,
  type AudienceGrant,
  type PluginAnswer,
  type PodState,
} from './service-account-token.ts';

const AUD = 'registry.example';
const ta = (o: Partial<TokenAttributes> = {}): TokenAttributes => ({
  serviceAccountTokenAudience: AUD,
  cacheType: 'ServiceAccount',
  requireServiceAccount: true,
  ...o,
});
const grant: AudienceGrant[] = [{ audience: AUD }];
const model = (
  t: TokenAttributes | undefined,
  o: { grants?: AudienceGrant[]; minor?: number; defaultMs?: number } = {},
) =>
  new ServiceAccountTokenModel({
    provider: { name: 'p', defaultCacheDurationMs: o.defaultMs ?? 0, ...(t ? { tokenAttributes: t } : {}) },
    behaviour: behaviourFor(`1.${o.minor ?? 37}`),
    grants: o.grants ?? grant,
  });
const sa = (name: string, annotations: Record<string, string> = {}) => ({ name, uid: `uid-${name}`, annotations });
const pod = (name: string, s = sa('a')): PodState => ({ namespace: 'ns', name, uid: `uid-${name}`, serviceAccount: s });
const staticPod: PodState = { namespace: 'ns', name: 'static-node', uid: 'hash' };
const ok: PluginAnswer = { cacheKeyType: 'Image', cacheDurationMs: 300_000, password: 'static', registryAccepts: true };
const IMG = 'reg.test/team/app';

describe('ServiceAccountTokenModel', () => {
  test('token mode: invoked with a token and exactly the required + present optional annotations', () => {
    const m = model(
      ta({
        requiredServiceAccountAnnotationKeys: ['x/req'],
        optionalServiceAccountAnnotationKeys: ['x/opt', 'x/absent'],
      }),
    );
    const p = m.pull(pod('p1', sa('a', { 'x/req': '1', 'x/opt': '2', 'x/other': '3' })), IMG, ok);
    expect(p).toMatchObject({
      tokenRequested: true,
      invoked: true,
      tokenPresent: true,
      annotations: { 'x/req': '1', 'x/opt': '2' },
      cache: 'miss',
      credentials: 'used',
      pull: 'success',
    });
  });

  test('a missing required annotation: not invoked, no credentials, the pull fails', () => {
    const p = model(ta({ requiredServiceAccountAnnotationKeys: ['x/req'] })).pull(
      pod('p1', sa('a', { 'x/opt': '2' })),
      IMG,
      ok,
    );
    expect(p).toMatchObject({ tokenRequested: false, invoked: false, credentials: 'none', pull: 'failure' });
    expect(p.because).toMatch(/required annotation x\/req missing/);
  });

  test('static pods: skipped when requireServiceAccount, invoked without a token otherwise', () => {
    expect(model(ta()).pull(staticPod, IMG, ok)).toMatchObject({ invoked: false, pull: 'failure' });
    expect(model(ta({ requireServiceAccount: false })).pull(staticPod, IMG, ok)).toMatchObject({
      invoked: true,
      tokenPresent: false,
      annotations: {},
      pull: 'success',
    });
  });

  test('ServiceAccount cache type: pods of one SA share an entry, another SA does not', () => {
    const m = model(ta());
    expect(m.pull(pod('p1'), IMG, ok).cache).toBe('miss');
    expect(m.pull(pod('p1'), IMG, ok, 1).cache).toBe('hit');
    expect(m.pull(pod('p2'), IMG, ok, 2).cache).toBe('hit');
    expect(m.pull(pod('p3', sa('b')), IMG, ok, 3).cache).toBe('miss');
  });

  test('Token cache type: the same pod (same token) hits, a new pod (new token) execs', () => {
    const m = model(ta({ cacheType: 'Token' }));
    expect(m.pull(pod('p1'), IMG, ok).cache).toBe('miss');
    expect(m.pull(pod('p1'), IMG, ok, 1).cache).toBe('hit');
    expect(m.pull(pod('p2'), IMG, ok, 2).cache).toBe('miss');
  });

  test('entries expire; cacheDuration 0 stores nothing', () => {
    const m = model(ta());
    m.pull(pod('p1'), IMG, { ...ok, cacheDurationMs: 1000 });
    expect(m.pull(pod('p2'), IMG, ok, 1001).cache).toBe('miss');
    const z = model(ta());
    z.pull(pod('p1'), IMG, { ...ok, cacheDurationMs: 0 });
    expect(z.pull(pod('p1'), IMG, ok, 1).cache).toBe('miss');
  });

  test('node audience restriction: no grant → the token request is refused and the plugin not invoked; resourceNames narrow it', () => {
    expect(model(ta(), { grants: [] }).pull(pod('p1'), IMG, ok)).toMatchObject({
      tokenRequested: true,
      tokenDenied: true,
      invoked: false,
      pull: 'failure',
    });
    const named = model(ta(), { grants: [{ audience: AUD, serviceAccounts: ['yes'] }] });
    expect(named.pull(pod('p1', sa('yes')), IMG, ok).invoked).toBe(true);
    expect(named.pull(pod('p2', sa('no')), IMG, ok).tokenDenied).toBe(true);
    expect(audienceAllowed([{ audience: AUD, namespace: 'other' }], AUD, 'ns', 'a')).toBeUndefined();
    expect(audienceAllowed([{ audience: AUD, namespace: 'ns' }], AUD, 'ns', 'a')).toBeDefined();
  });

  test('token as the password: refused unless cacheType Token (from 1.34, version table), and not cached', () => {
    const echo: PluginAnswer = { ...ok, password: 'token' };
    const m = model(ta());
    expect(m.pull(pod('p1'), IMG, echo)).toMatchObject({
      invoked: true,
      credentials: 'refused-token-as-password',
      pull: 'failure',
    });
    expect(m.pull(pod('p1'), IMG, echo, 1).cache).toBe('miss');
    expect(model(ta({ cacheType: 'Token' })).pull(pod('p1'), IMG, echo)).toMatchObject({
      credentials: 'used',
      pull: 'success',
    });
    expect(model(ta(), { minor: 33 }).pull(pod('p1'), IMG, echo).credentials).toBe('used');
  });

  test('without tokenAttributes there is no token and no SA part in the key', () => {
    const m = model(undefined, { defaultMs: 60_000 });
    expect(m.pull(pod('p1'), IMG, { ...ok, cacheDurationMs: undefined })).toMatchObject({
      invoked: true,
      tokenPresent: false,
      tokenRequested: false,
    });
    expect(m.pull(pod('p2', sa('b')), IMG, ok, 1).cache).toBe('hit');
  });
});

describe('token claims and validity', () => {
  test('a pod-bound token for the audience, one hour', () => {
    const t = predictToken({
      issuer: 'https://api',
      audience: AUD,
      pod: { ...pod('p1'), serviceAccount: sa('a') },
      node: { name: 'n', uid: 'nu' },
    });
    expect(t).toEqual({
      iss: 'https://api',
      aud: [AUD],
      sub: 'system:serviceaccount:ns:a',
      kubernetes: {
        namespace: 'ns',
        serviceaccount: { name: 'a', uid: 'uid-a' },
        pod: { name: 'p1', uid: 'uid-p1' },
        node: { name: 'n', uid: 'nu' },
      },
      lifetimeSeconds: DEFAULT_TOKEN_EXPIRATION_SECONDS,
    });
    expect(DEFAULT_TOKEN_EXPIRATION_SECONDS).toBe(3600);
  });

  test('deleting the pod or the SA fails the TokenReview, not the signature', () => {
    expect(predictTokenValidity({ expired: false, podExists: true, serviceAccountExists: true })).toMatchObject({
      signature: 'valid',
      tokenReview: 'authenticated',
    });
    expect(predictTokenValidity({ expired: false, podExists: false, serviceAccountExists: true })).toMatchObject({
      signature: 'valid',
      tokenReview: 'refused',
    });
    expect(predictTokenValidity({ expired: false, podExists: true, serviceAccountExists: false })).toMatchObject({
      signature: 'valid',
      tokenReview: 'refused',
    });
    expect(predictTokenValidity({ expired: true, podExists: true, serviceAccountExists: true })).toMatchObject({
      signature: 'invalid',
      tokenReview: 'refused',
    });
  });
});
