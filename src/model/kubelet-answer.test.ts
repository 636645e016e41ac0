import { describe, expect, test } from '@jest/globals';
import { behaviourFor } from '../versions/table.ts';
import { kubeletAnswerVerdict, stepOf } from './kubelet-answer.ts';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.c2E.c2ln';
const answer = (cacheKeyType: string, password: string) =>
  JSON.stringify({
    apiVersion: V1,
    kind: 'CredentialProviderResponse',
    cacheKeyType,
    auth: { 'reg.io': { username: 'sa', password } },
  });

describe("the kubelet's steps, in its order", () => {
  // Found by the differential test: the kubelet v1.37.1 said "returned the service account token as the password".
  test('an answer echoing the token with an invalid cacheKeyType is refused for the token, not the cacheKeyType', () => {
    const v = kubeletAnswerVerdict(answer('Token', TOKEN), {
      apiVersion: V1,
      serviceAccountToken: TOKEN,
      cacheType: 'ServiceAccount',
      behaviour: behaviourFor('1.37'),
    });
    expect(v).toMatchObject({ ok: false, step: 'token-as-password' });
    expect(
      stepOf(
        "credential provider plugin returned the service account token as the password which is not allowed when service account cache type is not set to 'Token'",
      ),
    ).toBe('token-as-password');
  });

  test('cacheType Token, or a kubelet before 1.34, leaves the echo alone: then cacheKeyType decides', () => {
    for (const [cacheType, minor] of [
      ['Token', '1.37'],
      ['ServiceAccount', '1.33'],
    ] as const)
      expect(
        kubeletAnswerVerdict(answer('Token', TOKEN), {
          apiVersion: V1,
          serviceAccountToken: TOKEN,
          cacheType,
          behaviour: behaviourFor(minor),
        }),
      ).toMatchObject({ ok: false, step: 'cacheKeyType' });
  });

  test('a numeric kind is refused when the GVK is read, before the apiVersion is compared', () => {
    const v = kubeletAnswerVerdict(JSON.stringify({ apiVersion: 'v1', kind: 5 }), {
      apiVersion: V1,
      behaviour: behaviourFor('1.37'),
    });
    expect(v).toMatchObject({ ok: false, step: 'gvk' });
  });
});
