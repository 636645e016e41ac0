// The kubelet config vendor-acr writes, per supported minor: what that minor's
// kubelet decodes and validates (credprov's validator of that version, strict
// decoding included), with the feature gates the suite turns on for it.
import { describe, expect, test } from '@jest/globals';
import { stringify } from 'yaml';
import { parseProviderConfig } from '../../src/api/credentialprovider/config.ts';
import { saTokenGates } from '../../src/api/credentialprovider/for-version.ts';
import { behaviourFor, SUPPORTED_MINORS } from '../../src/versions/table.ts';
import { ACR_CLIENT_ID_ANNOTATION, ACR_TENANT_ID_ANNOTATION } from '../../src/run/kit.ts';
import { PROVIDER, providerConfig, runNames } from './plan.ts';

const names = runNames('abc123', () => '00000000-0000-4000-8000-000000000001');
const files = {
  staticJson: '/x/azure-static.json',
  miJson: '/x/azure-mi.json',
  identityEndpoint: 'http://127.0.0.1:1/msi/token',
  identityHeader: 'h',
  caFile: '/x/ca.crt',
};
const configFor = (minor: number) => providerConfig(names, files, behaviourFor(`1.${minor}`));
const saProviders = (minor: number) => configFor(minor).providers.filter((p) => p.tokenAttributes);

describe.each(SUPPORTED_MINORS)('kubelet 1.%i', (minor) => {
  test('decodes and validates the config with the gates the suite sets', () => {
    const opts = { kubeVersion: `1.${minor}`, featureGates: saTokenGates(behaviourFor(`1.${minor}`)).kubelet };
    expect(() => parseProviderConfig(stringify(configFor(minor)), 'vendor-acr.yaml', opts)).not.toThrow();
  });

  test('the two KEP-4412 providers keep their audience, required SA and the two annotations', () => {
    expect(saProviders(minor).map((p) => p.name)).toEqual([PROVIDER.sa, PROVIDER.wi]);
    for (const p of saProviders(minor))
      expect(p.tokenAttributes).toMatchObject({
        serviceAccountTokenAudience: names.audience,
        requireServiceAccount: true,
        requiredServiceAccountAnnotationKeys: [ACR_CLIENT_ID_ANNOTATION, ACR_TENANT_ID_ANNOTATION],
      });
  });
});

test('1.33: no cacheType (the field does not exist there); 1.34 on: cacheType ServiceAccount', () => {
  expect(saProviders(33).map((p) => p.tokenAttributes?.cacheType)).toEqual([undefined, undefined]);
  for (const minor of SUPPORTED_MINORS.filter((m) => m !== 33))
    expect(saProviders(minor).map((p) => p.tokenAttributes?.cacheType)).toEqual(['ServiceAccount', 'ServiceAccount']);
});

test("1.33 refuses 1.34's config (cacheType: an unknown field), and this one without the alpha gate", () => {
  const gate = { KubeletServiceAccountTokenForCredentialProviders: true };
  expect(() =>
    parseProviderConfig(stringify(configFor(34)), 'vendor-acr.yaml', { kubeVersion: '1.33', featureGates: gate }),
  ).toThrow(/would refuse/);
  expect(() => parseProviderConfig(stringify(configFor(33)), 'vendor-acr.yaml', { kubeVersion: '1.33' })).toThrow(
    /would refuse/,
  );
});
