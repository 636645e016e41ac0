// The vendor-ecr predictions from the plan, without a cluster: each value a
// reader can check against the rule it comes from (the config's matchImages,
// the plugin's getCacheDuration, the kubelet's cache and NodeRestriction).
import { describe, expect, test } from '@jest/globals';
import type { PodState } from '../../src/model/service-account-token.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { IMAGES, PROVIDER, providerConfig, runNames } from './plan.ts';
import {
  answerAgrees,
  predictAnswer,
  predictCache,
  predictPull,
  predictRefresh,
  predictUnmatched,
  refreshExecs,
} from './predict.ts';
import {
  predictSaAnnotation,
  predictSaAudience,
  predictSaPull,
  predictSaRbac,
  saModel,
  saPluginAnswer,
} from './predict-sa.ts';
import { ECR_ROLE_ANNOTATION } from '../../src/run/kit.ts';

const names = runNames('abc123');
const endpoints = { ecr: 'http://127.0.0.1:1', sts: 'http://127.0.0.1:2', other: 'http://127.0.0.1:3' };
const config = providerConfig(
  endpoints,
  { accessKeyId: 'AKIANODE', secretAccessKey: 'secret' },
  names,
  behaviourFor('v1.37.1'),
);
const provider = (name: string) => config.providers.find((p) => p.name === name)!;

describe('non-SA predictions', () => {
  test("an image on us-east-1 execs the static provider, which asks ECR us-east-1 with the node user's keys", () => {
    const p = predictPull(config, IMAGES.app);
    expect(p.value).toEqual({
      invoked: [PROVIDER.static],
      ecr: ['ECR us-east-1 by arn:aws:iam::111122223333:user/kubelet-node → 200'],
      pull: 'pull success',
    });
    expect(p.because).toContain('ecr-credential-provider matches *.dkr.ecr.us-east-1.amazonaws.com');
  });

  test('public.ecr.aws matches no provider: nothing runs, no AWS call, an anonymous pull the registry refuses', () => {
    expect(predictUnmatched(config, IMAGES.public).value).toEqual({
      invoked: [],
      awsRequests: 0,
      pull: 'pull failure (unauthorized)',
    });
  });

  test("the answer is half the token's remaining whole seconds, a range when the exec spans a second boundary", () => {
    const start = Date.parse('2026-11-25T10:00:00.200Z');
    const token = { expiresAt: new Date(start - 200 + 12 * 3600_000).toISOString(), lifetimeS: 43200 };
    expect(predictAnswer(token, { startMs: start, endMs: start + 700 }).value).toEqual({
      cacheKeyType: 'Registry',
      cacheDurationS: [21600, 21600],
    });
    const spanning = predictAnswer(token, { startMs: start + 700, endMs: start + 1000 }).value;
    expect(spanning.cacheDurationS).toEqual([21599, 21600]);
    expect(answerAgrees(spanning, { cacheKeyType: 'Registry', cacheDurationS: [21599] })).toBe(true);
    expect(answerAgrees(spanning, { cacheKeyType: 'Registry', cacheDurationS: [21598] })).toBe(false);
    expect(answerAgrees(spanning, { cacheKeyType: 'Image', cacheDurationS: [21600] })).toBe(false);
  });

  test("a Registry answer serves another repository of the registry from the cache, not another account's registry", () => {
    const images: [typeof IMAGES.app, typeof IMAGES.app, typeof IMAGES.app] = [
      IMAGES.app,
      IMAGES.other,
      IMAGES.otherAccount,
    ];
    const registry = predictCache(
      provider(PROVIDER.static),
      { cacheKeyType: 'Registry', cacheDurationMs: 6 * 3600_000, cacheDuration: '6h0m0s' },
      images,
    );
    expect(registry.value.map((r) => r.execs)).toEqual([1, 0, 1]);
    // An Image answer would cache nothing the second image could use.
    expect(
      predictCache(
        provider(PROVIDER.static),
        { cacheKeyType: 'Image', cacheDurationMs: 6 * 3600_000 },
        images,
      ).value.map((r) => r.execs),
    ).toEqual([1, 1, 1]);
  });

  test('refresh: exec, hit while the entry lives, exec again after it expired; a second pull after the expiry is a slipped schedule', () => {
    const p = predictRefresh(IMAGES.refresh.request, '12s', 3000);
    expect(p.value).toEqual({
      execs: [1, 0, 1],
      ecrTokens: 2,
      pulls: ['pull success', 'pull success', 'pull success'],
    });
    expect(refreshExecs(IMAGES.refresh.request, 12_000, [0, 12_500, 14_000]).map((d) => d.invoked)).toEqual([
      true,
      true,
      false,
    ]);
  });
});

describe("SA predictions (kubelet v1.37: token mode and NodeRestriction's audience check on by default)", () => {
  const behaviour = behaviourFor('v1.37.1');
  const pod = (serviceAccount: string, annotations: Record<string, string>): PodState => ({
    namespace: 'default',
    name: 'p',
    uid: 'u',
    serviceAccount: { name: serviceAccount, uid: 'sa-uid', annotations },
  });
  const annotated = pod(names.puller, { [ECR_ROLE_ANNOTATION]: names.roleArn });
  const answer = saPluginAnswer({ cacheKeyType: 'Registry', cacheDurationMs: 6 * 3600_000 });

  test("without the role annotation the plugin is not exec'd and the pull has no credentials", () => {
    const p = saModel(provider(PROVIDER.sa), { behaviour, grants: [] }).pull(
      pod(names.bare, {}),
      IMAGES.sa.request,
      answer,
    );
    expect(predictSaAnnotation(p).value).toEqual({ invoked: false, sts: [], pull: 'pull failure (unauthorized)' });
  });

  test('without an audience grant the token is refused; with it the plugin runs and the pull works', () => {
    const without = saModel(provider(PROVIDER.sa), { behaviour, grants: [] }).pull(
      annotated,
      IMAGES.sa.request,
      answer,
    );
    const withGrant = saModel(provider(PROVIDER.sa), { behaviour, grants: [{ audience: names.audience }] }).pull(
      annotated,
      IMAGES.sa.request,
      answer,
    );
    expect(predictSaRbac(without, withGrant).value).toEqual({
      withoutGrant: { tokenDenied: true, invoked: false, pull: 'pull failure' },
      withGrant: { tokenDenied: false, invoked: true, pull: 'pull success' },
    });
    expect(predictSaPull(withGrant, names).value).toEqual({
      invoked: true,
      tokenAud: [names.audience],
      annotations: { [ECR_ROLE_ANNOTATION]: names.roleArn },
      aws: [
        `STS AssumeRoleWithWebIdentity ${names.roleArn} aud=["credprov-ecr-abc123"] → 200`,
        'ECR eu-west-1 by arn:aws:sts::111122223333:assumed-role/credprov-ecr-pull-abc123/ecr-credential-provider → 200',
      ],
      pull: 'pull success',
    });
  });

  test("an audience STS does not accept: exec'd with that token, STS refuses, the plugin fails, no credentials", () => {
    const grants = [{ audience: names.audience }, { audience: names.wrongAudience }];
    const p = saModel(provider(PROVIDER.wrongAud), { behaviour, grants }).pull(annotated, IMAGES.wrongAud.request, {
      ...answer,
      registryAccepts: false,
    });
    const prediction = predictSaAudience(p, names);
    expect(prediction.value).toEqual({
      invoked: true,
      tokenAud: [names.wrongAudience],
      pluginExit: 'non-zero',
      pull: 'pull failure (unauthorized)',
      aws: [
        `STS AssumeRoleWithWebIdentity ${names.roleArn} aud=["credprov-ecr-other-abc123"] → 400 InvalidIdentityToken`,
      ],
    });
    expect(prediction.because).not.toMatch(/stored under/);
  });
});
