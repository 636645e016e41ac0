// The downgrade predictions without a cluster, pinned where a reader can
// check them against the models' rules: the gate-off config refused and the
// fix accepted, the node config.json covering one of two images, the one
// step whose answer is in another apiVersion, the record chain through the
// gate toggle and the downgrade, and the cold cache after a restart.
import { describe, expect, test } from '@jest/globals';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { validateScenario } from '../../src/run/kit.ts';
import {
  IMAGE,
  MATCH_IMAGES,
  OTHER,
  PROVIDER,
  RECORDED,
  RECORDED_MINOR,
  scenario,
  V1,
  V1BETA1,
  VIA_PLUGIN,
} from './plan.ts';
import {
  podWithSecret,
  predictApiVersionSteps,
  predictFallback,
  predictGateOffFix,
  predictGateOffRefused,
  predictGateToggle,
  predictOneMinor,
  predictPodKeepsRunning,
} from './predict.ts';

const CONFIG = {
  apiVersion: 'kubelet.config.k8s.io/v1',
  kind: 'CredentialProviderConfig',
  providers: [{ name: PROVIDER, apiVersion: V1, matchImages: MATCH_IMAGES, defaultCacheDuration: '0s' }],
} as CredentialProviderConfig;
const KUBELET = 'v1.37.1';
const CREDENTIALS = { username: 'down', password: 'secret' };
const SECRET = { name: 'down-pull-secret', uid: 'uid-1' };

describe('downgrade predictions', () => {
  test("the fake's scenarios pass its own strict validation, whatever apiVersion they pin", () => {
    for (const apiVersion of [undefined, V1, V1BETA1]) {
      expect(
        validateScenario(scenario({ ...CREDENTIALS, access: [] } as typeof CREDENTIALS, apiVersion)).problems,
      ).toEqual([]);
    }
  });

  test('tokenAttributes with the SA-token gate off: refused; without them, the gate still off: starts and pulls without a token', () => {
    const refused = predictGateOffRefused(CONFIG, KUBELET);
    expect(refused.value).toBe('refuses to start');
    expect(refused.because).toMatch(/tokenAttributes/);
    expect(predictGateOffFix(CONFIG, KUBELET).value).toBe('starts; pull success without a token');
    expect(predictPodKeepsRunning(0).value).toEqual({ running: true, sameContainer: true, restartCount: 0 });
  });

  test('without the provider config, only the image the node config.json covers still pulls', () => {
    expect(predictFallback('down').value).toEqual([
      { image: IMAGE, before: 'success', after: 'success' },
      { image: OTHER, before: 'success', after: 'failure' },
    ]);
  });

  test("only the answer in another apiVersion than the provider entry's is refused", () => {
    const { prediction, decoderErrors } = predictApiVersionSteps();
    expect(prediction.value).toEqual([
      'config v1, plugin answers v1: pull success',
      'config v1beta1, plugin answers v1beta1: pull success',
      'config v1beta1, plugin answers v1: pull failure (response refused)',
      'config v1, plugin answers v1: pull success',
    ]);
    expect(Object.keys(decoderErrors)).toEqual(['config v1beta1, plugin answers v1']);
  });

  test('KEP-2535 gate on, off, on: the record is ignored while off and honoured again', () => {
    const { prediction, degenerate } = predictGateToggle(RECORDED, podWithSecret(RECORDED, SECRET, CREDENTIALS));
    expect(degenerate).toBeUndefined();
    expect(prediction.value).toEqual([
      'gate on, pod with the secret: Running',
      'gate off, pod without credentials: Running',
      'gate on again, pod without credentials: ErrImagePull',
    ]);
  });

  test('a secret for another registry makes the gate chain degenerate (every step the same outcome)', () => {
    expect(predictGateToggle(RECORDED, podWithSecret(OTHER, SECRET, CREDENTIALS)).degenerate).toMatch(
      /every step predicts/,
    );
  });

  test('one minor down: the record still demands credentials, and the cache starts empty', () => {
    expect(
      predictOneMinor(RECORDED_MINOR, VIA_PLUGIN, podWithSecret(RECORDED_MINOR, SECRET, CREDENTIALS)).value,
    ).toEqual({
      beforeDowngrade: 'plugin execs 1 for 2 pulls; record pull Running',
      afterDowngrade: 'plugin execs 1 for 1 pull; pod without credentials ErrImagePull',
    });
  });
});
