// The suite's predictions without a cluster, computed through the keyring
// model (src/model/pull-credentials.ts) from the suite's plan. Each expected
// value can be checked by hand against the model's rules: a missing secret is
// skipped, a placeholder offers nothing (one anonymous pull, refused), the
// pod's secrets are tried in order before the providers, and the pull stops
// at the first credential that works.
import { describe, expect, test } from '@jest/globals';
import { predictPull } from '../../src/model/pull-credentials.ts';
import { PROVIDER, imageOf, providerMatchImages } from './plan.ts';
import {
  MIX_SECRETS,
  predictEverySecretTried,
  predictExplicitNotMerged,
  predictImmutable,
  predictMissingThenCreated,
  predictPlaceholderFilled,
  predictSecretAndProvider,
  predictServiceAccountSecretNotAdopted,
  providerSource,
  secretSource,
  type World,
} from './predict.ts';

const world = (host: string): World => ({
  host,
  accounts: {
    right: { username: 'secrets' },
    // The registry's own user, with a password it refuses.
    wrong: { username: 'secrets' },
    secretWrong: { username: 'secret-wrong-1' },
    providerWrong: { username: 'provider-wrong-1' },
  },
});
// The lab registry's host is a loopback address and a port; the predictions must not depend on which.
const HOSTS = ['127.0.0.1:41234', 'localhost:5000'];

describe.each(HOSTS)('pull-secrets predictions, registry %s', (host) => {
  const w = world(host);

  test('a missing secret is skipped (anonymous pull refused); once created, its right credential pulls', () => {
    const p = predictMissingThenCreated(w);
    expect(p.value).toEqual({ whileMissing: 'failure', onceCreated: 'success' });
    expect(p.because).toContain('missing secret late-secret skipped');
    expect(p.because).toContain('one anonymous pull, which the registry refuses');
  });

  test('an empty {"auths":{}} secret offers nothing; filled in, it pulls', () => {
    const p = predictPlaceholderFilled(w);
    expect(p.value).toEqual({ empty: 'failure', filled: 'success' });
    expect(p.because).toContain('secret placeholder (works)');
  });

  test('imagePullSecrets are immutable: the update is refused and the pod keeps [right]', () => {
    expect(predictImmutable().value).toEqual({ update: 'refused', imagePullSecretsAfter: ['right'] });
  });

  test("explicit secrets are not merged with the service account's: only the wrong one is tried", () => {
    const p = predictExplicitNotMerged(w);
    expect(p.value).toEqual({ podImagePullSecrets: ['wrong'], pull: 'failure' });
    expect(p.because).toContain('secret wrong (refused): none works');
  });

  test("a pod without secrets does not adopt its service account's later one: one anonymous pull, refused", () => {
    const p = predictServiceAccountSecretNotAdopted(w);
    expect(p.value).toEqual({ podImagePullSecrets: [], pullAfterRetry: 'failure' });
    expect(p.because).toContain('one anonymous pull');
  });

  test('[wrong, right] for one registry: both tried, in order, the second works', () => {
    const p = predictEverySecretTried(w);
    expect(p.value).toBe('success');
    expect(p.because).toContain('secret wrong (refused) → secret right (works)');
  });

  test("the pod's secret comes before the provider; the provider is tried only when the secret fails", () => {
    expect(predictSecretAndProvider(w).value).toEqual({
      wrongSecretRightProvider: {
        pull: 'success',
        tried: [secretSource(MIX_SECRETS['mix-a']), providerSource(PROVIDER)],
      },
      rightSecretWrongProvider: { pull: 'success', tried: [secretSource(MIX_SECRETS['mix-b'])] },
    });
    expect(predictSecretAndProvider(w).value.wrongSecretRightProvider.tried).toEqual([
      'secret mix-wrong',
      'provider credprov-secrets-mix',
    ]);
  });

  test("the provider's matchImages cover the mixed repositories only", () => {
    const provider = {
      name: PROVIDER,
      matchImages: providerMatchImages(host),
      auths: { [host]: { username: 'secrets', works: true } },
    };
    const offered = (repo: 'mix-a' | 'mix-b' | 'every') =>
      predictPull({ image: imageOf(host, repo), secrets: [], providers: [provider] }).pull;
    expect([offered('mix-a'), offered('mix-b'), offered('every')]).toEqual(['success', 'success', 'failure']);
  });
});
