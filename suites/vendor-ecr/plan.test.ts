// The kubelet config vendor-ecr writes, per supported minor: what that minor's
// kubelet decodes and validates (credprov's validator of that version, strict
// decoding included), with the feature gates the suite turns on for it.
import { describe, expect, test } from '@jest/globals';
import { stringify } from 'yaml';
import { parseProviderConfig } from '../../src/api/credentialprovider/config.ts';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { saTokenGates } from '../../src/api/credentialprovider/for-version.ts';
import type { PodState } from '../../src/model/service-account-token.ts';
import { behaviourFor, SUPPORTED_MINORS } from '../../src/versions/table.ts';
import { ConfigError, ECR_ROLE_ANNOTATION, type FieldProblem } from '../../src/run/kit.ts';
import { IMAGES, PROVIDER, providerConfig, runNames } from './plan.ts';
import { predictSaRbac, saModel, saPluginAnswer } from './predict-sa.ts';

const names = runNames('abc123');
const endpoints = { ecr: 'http://127.0.0.1:1', sts: 'http://127.0.0.1:2', other: 'http://127.0.0.1:3' };
const keys = { accessKeyId: 'AKIANODE', secretAccessKey: 'secret' };
const configFor = (minor: number) => providerConfig(endpoints, keys, names, behaviourFor(`1.${minor}`));
/** The field problems a kubelet 1.33 with `gates` reports for `config` (none: []). */
const problems = (config: CredentialProviderConfig, gates: Record<string, boolean>): FieldProblem[] => {
  try {
    parseProviderConfig(stringify(config), 'vendor-ecr.yaml', { kubeVersion: '1.33', featureGates: gates });
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
};
const saProviders = (minor: number) => configFor(minor).providers.filter((p) => p.tokenAttributes);

describe.each(SUPPORTED_MINORS)('kubelet 1.%i', (minor) => {
  const b = behaviourFor(`1.${minor}`);
  const gates = saTokenGates(b).kubelet;

  test('decodes and validates the config with the gates the suite sets', () => {
    expect(() =>
      parseProviderConfig(stringify(configFor(minor)), 'vendor-ecr.yaml', {
        kubeVersion: `1.${minor}`,
        featureGates: gates,
      }),
    ).not.toThrow();
  });

  test('both KEP-4412 providers keep their audience, required SA and role annotation', () => {
    expect(saProviders(minor).map((p) => p.tokenAttributes?.serviceAccountTokenAudience)).toEqual([
      names.audience,
      names.wrongAudience,
    ]);
    for (const p of saProviders(minor))
      expect(p.tokenAttributes).toMatchObject({
        requireServiceAccount: true,
        requiredServiceAccountAnnotationKeys: [ECR_ROLE_ANNOTATION],
      });
  });
});

describe('per minor', () => {
  test('1.33: no cacheType (the field does not exist) and the alpha gate turned on', () => {
    expect(saProviders(33).map((p) => p.tokenAttributes?.cacheType)).toEqual([undefined, undefined]);
    expect(saTokenGates(behaviourFor('1.33'))).toEqual({
      kubelet: { KubeletServiceAccountTokenForCredentialProviders: true },
      apiserver: { KubeletServiceAccountTokenForCredentialProviders: true },
    });
  });

  test.each([34, 35, 36, 37, 38])('1.%i: cacheType ServiceAccount, no gate to set (beta, on by default)', (minor) => {
    expect(saProviders(minor).map((p) => p.tokenAttributes?.cacheType)).toEqual(['ServiceAccount', 'ServiceAccount']);
    expect(saTokenGates(behaviourFor(`1.${minor}`))).toEqual({ kubelet: {}, apiserver: {} });
  });

  test("what 1.33 refused before: 1.34's config (cacheType) is an unknown field, and without the gate tokenAttributes is forbidden", () => {
    const withGate = { KubeletServiceAccountTokenForCredentialProviders: true };
    expect(problems(configFor(34), withGate).map((p) => p.field)).toEqual([
      'providers[1].tokenAttributes.cacheType',
      'providers[2].tokenAttributes.cacheType',
    ]);
    expect(problems(configFor(33), {}).map((p) => p.message)).toEqual([
      expect.stringContaining('KubeletServiceAccountTokenForCredentialProviders feature gate is disabled'),
      expect.stringContaining('KubeletServiceAccountTokenForCredentialProviders feature gate is disabled'),
    ]);
  });
});

test('1.33 with the gate: the SA model predicts what it predicts on 1.37 (token refused without the grant, pulled with it)', () => {
  const pod: PodState = {
    namespace: 'default',
    name: 'p',
    uid: 'u',
    serviceAccount: { name: names.puller, uid: 'sa-uid', annotations: { [ECR_ROLE_ANNOTATION]: names.roleArn } },
  };
  const answer = saPluginAnswer({ cacheKeyType: 'Registry', cacheDurationMs: 6 * 3600_000 });
  const rbac = (minor: number) => {
    const provider = configFor(minor).providers.find((p) => p.name === PROVIDER.sa)!;
    const behaviour = behaviourFor(`1.${minor}`);
    const gates = saTokenGates(behaviour);
    const model = (grants: Array<{ audience: string }>) => saModel(provider, { behaviour, gates, grants });
    return predictSaRbac(
      model([]).pull(pod, IMAGES.sa.request, answer),
      model([{ audience: names.audience }]).pull(pod, IMAGES.sa.request, answer),
    ).value;
  };
  expect(rbac(33)).toEqual(rbac(37));
  expect(rbac(33)).toEqual({
    withoutGrant: { tokenDenied: true, invoked: false, pull: 'pull failure' },
    withGrant: { tokenDenied: false, invoked: true, pull: 'pull success' },
  });
});

test("1.33 with the gate on the kubelet only: the Node authorizer refuses the kubelet's get of the SA, the plugin never runs", () => {
  const provider = configFor(33).providers.find((p) => p.name === PROVIDER.sa)!;
  const behaviour = behaviourFor('v1.33.13');
  const gates = { kubelet: saTokenGates(behaviour).kubelet, apiserver: {} };
  const pod: PodState = {
    namespace: 'default',
    name: 'p',
    uid: 'u',
    serviceAccount: { name: names.puller, uid: 'sa-uid', annotations: { [ECR_ROLE_ANNOTATION]: names.roleArn } },
  };
  const p = saModel(provider, { behaviour, gates, grants: [{ audience: names.audience }] }).pull(
    pod,
    IMAGES.sa.request,
    saPluginAnswer({ cacheKeyType: 'Registry', cacheDurationMs: 6 * 3600_000 }),
  );
  expect(p).toMatchObject({ tokenRequested: false, invoked: false, pull: 'failure' });
  expect(p.because).toContain('not allowed to get service accounts');
});
