import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { decodeResponse } from '../api/credentialprovider/response.ts';
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

// The outputs kubelet v1.37.1 was given (src/api's recorded testdata): where it refused one, its message names the step
// (reading the GVK, the apiVersion, the strict decode, cacheKeyType), and credprov's decode refuses at the same step.
// (Here, not beside the decoder: src/api does not import models.)
describe('the recorded kubelet v1.37.1 refusals, step by step', () => {
  const recorded = JSON.parse(
    readFileSync(new URL('../api/credentialprovider/testdata/kubelet-v1.37.1-responses.json', import.meta.url), 'utf8'),
  ) as { cases: { name: string; stdout: string; kubeletError: string | null }[] };
  const refused = recorded.cases.filter((c) => c.kubeletError !== null);
  test.each(refused.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const r = decodeResponse(c.stdout, 'credentialprovider.kubelet.k8s.io/v1');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(stepOf(r.error)).toBe(stepOf(c.kubeletError!));
  });
});
