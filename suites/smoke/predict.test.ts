import { describe, expect, test } from '@jest/globals';
import { smokePlan } from './plan.ts';
import { predictPod, predictRequests } from './predict.ts';

const plan = smokePlan('127.0.0.5:5000');

describe('smoke predictions', () => {
  test("the matched image pulls with the provider's credentials and runs; the unmatched one pulls anonymously and is refused", () => {
    expect(predictPod(plan, plan.images.matched, 'smoke').value).toEqual({ pull: 'success', ranImage: true });
    const unmatched = predictPod(plan, plan.images.unmatched, 'smoke');
    expect(unmatched.value).toEqual({ pull: 'failure', ranImage: false });
    expect(unmatched.because).toMatch(/no credential matches 127.0.0.5:5000\/smoke\/unmatched/);
  });

  test('the plugin is asked once, for the matched repository without tag, in v1, without a token', () => {
    expect(predictRequests(plan, '1.37.1').value).toEqual([
      {
        provider: 'credprov-fake',
        apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
        kind: 'CredentialProviderRequest',
        image: '127.0.0.5:5000/smoke/private',
        token: false,
      },
    ]);
  });

  test('a provider with tokenAttributes would be sent a token', () => {
    const withToken = {
      ...plan,
      config: {
        ...plan.config,
        providers: plan.config.providers.map((p) => ({
          ...p,
          tokenAttributes: {
            serviceAccountTokenAudience: 'a',
            requireServiceAccount: false,
            cacheType: 'Token' as const,
          },
        })),
      },
    };
    expect(predictRequests(withToken, '1.37.1').value.map((r) => r.token)).toEqual([true]);
  });
});
