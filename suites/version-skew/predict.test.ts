// The version-skew predictions without a cluster: what the version table,
// the matching oracle and the validator say for each kubelet minor the suite
// asks about, pinned where a reader can check them against the table's rows.
import { describe, expect, test } from '@jest/globals';
import { SA_TOKEN_GATE } from '../../src/api/credentialprovider/config.ts';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { skewProblem } from '../../src/versions/skew.ts';
import { SKEW_MINORS } from './checks.ts';
import { fleetMembers, tokenConfig } from './plan.ts';
import { predictOrder, predictProtocol, predictStart, PROTOCOL_REPOSITORIES } from './predict.ts';

// The config prepareFleet writes for these members: their entries in member order.
const CONFIG = {
  apiVersion: 'kubelet.config.k8s.io/v1',
  kind: 'CredentialProviderConfig',
  providers: fleetMembers({ username: 'u', password: 'p' }).map((m) => ({
    name: m.name,
    apiVersion: m.apiVersion,
    matchImages: m.matchImages,
    defaultCacheDuration: m.defaultCacheDuration,
  })),
} as CredentialProviderConfig;

describe('version-skew predictions', () => {
  test('the suite asks about every modelled minor; under an API server only its own and the three before it apply', () => {
    expect(SKEW_MINORS).toEqual([38, 37, 36, 35, 34, 33]);
    const applicable = (api: string) => SKEW_MINORS.filter((m) => !skewProblem(api, `1.${m}`));
    expect(applicable('v1.37.1')).toEqual([37, 36, 35, 34]);
    expect(applicable('v1.36.5')).toEqual([36, 35, 34, 33]);
    expect(applicable('v1.38.0-alpha.0')).toEqual([38, 37, 36, 35]);
    expect(skewProblem('v1.36.5', '1.37')).toMatch(/^kubelet v1.37 is newer than kube-apiserver v1.36.5/);
  });

  for (const minor of SKEW_MINORS) {
    const kubelet = `v1.${minor}.0`;
    test(`1.${minor}: both order providers in the table row's order, each protocol image to its own provider and version`, () => {
      // From 1.33 every row says config order: z (first in the config) before a.
      expect(behaviourFor(kubelet).providerOrder).toBe('config');
      expect(predictOrder(CONFIG, kubelet).value).toBe('skew-order-z → skew-order-a, pull success');
      expect(predictProtocol(CONFIG, kubelet).value).toEqual({
        [PROTOCOL_REPOSITORIES[0]!]: 'skew-proto-v1: credentialprovider.kubelet.k8s.io/v1 request, pull success',
        [PROTOCOL_REPOSITORIES[1]!]:
          'skew-proto-v1beta1: credentialprovider.kubelet.k8s.io/v1beta1 request, pull success',
      });
    });

    test(`1.${minor}: tokenAttributes with the SA-token gate off, and without cacheType (required from 1.34), are refused`, () => {
      const gateOff = predictStart(tokenConfig(CONFIG, 'ServiceAccount'), kubelet, { [SA_TOKEN_GATE]: false });
      expect(gateOff.prediction.value).toBe('refuses to start');
      expect(gateOff.prediction.because).toMatch(/tokenAttributes/);
      // Without cacheType: refused where it is required (1.34+), and on 1.33 because the gate is off by default (alpha).
      const row = behaviourFor(kubelet);
      expect(row.cacheTypeRequired || !row.gateDefaults.KubeletServiceAccountTokenForCredentialProviders).toBe(true);
      expect(predictStart(tokenConfig(CONFIG, undefined), kubelet, {}).prediction.value).toBe('refuses to start');
    });

    test(`1.${minor}: the suite's own config starts`, () => {
      expect(predictStart(CONFIG, kubelet, {}).prediction).toMatchObject({
        value: 'starts',
        because: 'no rule of that version is broken',
      });
      // With tokenAttributes it starts where the SA-token gate is on by default (1.34+), not on 1.33.
      const gateOn = behaviourFor(kubelet).gateDefaults.KubeletServiceAccountTokenForCredentialProviders === true;
      expect(predictStart(tokenConfig(CONFIG, 'ServiceAccount'), kubelet, {}).prediction.value).toBe(
        gateOn ? 'starts' : 'refuses to start',
      );
      expect(gateOn).toBe(minor >= 34);
    });
  }
});
