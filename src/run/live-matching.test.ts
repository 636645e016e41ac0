import { describe, expect, test } from '@jest/globals';
import type { CredentialProviderConfig } from '../api/credentialprovider/types.ts';
import { normalizeImage } from '../matching/image.ts';
import { predictImage } from './live-matching.ts';
import { judge } from './prediction.ts';

const cfg = {
  apiVersion: 'kubelet.config.k8s.io/v1',
  kind: 'CredentialProviderConfig',
  providers: [
    {
      name: 'zz',
      matchImages: ['reg.test'],
      apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
      defaultCacheDuration: '0s',
    },
    {
      name: 'aa',
      matchImages: ['reg.test', '*.reg.test'],
      apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
      defaultCacheDuration: '0s',
    },
  ],
} as CredentialProviderConfig;

describe("predictImage (the matching suite's prediction)", () => {
  test('every matching provider, in config order from 1.33, and a pull that works when one credential is right', () => {
    const p = predictImage(cfg, normalizeImage('reg.test/app:v1'), 'v1.37.1', { zz: { credentials: 'wrong' } });
    expect(p.providers).toEqual([
      { name: 'zz', invoked: true, order: 0 },
      { name: 'aa', invoked: true, order: 1 },
    ]);
    expect(p.pull).toBe('success');
    expect(p.because).toMatch(/config order/);
  });

  test('an auth key that does not cover the image leaves an anonymous pull, predicted to fail', () => {
    const p = predictImage(cfg, normalizeImage('a.reg.test/app'), 'v1.37.1', {
      aa: { credentials: 'right', authKey: 'other.test' },
    });
    expect(p.providers.filter((x) => x.invoked).map((x) => x.name)).toEqual(['aa']);
    expect(p.pull).toBe('failure');
    expect(p.because).toMatch(/no returned auth key matches/);
  });

  test('no provider for a label-count mismatch', () => {
    expect(
      predictImage(cfg, normalizeImage('a.b.reg.test/app'), 'v1.37.1', {}).providers.every((x) => !x.invoked),
    ).toBe(true);
  });
});

describe('judge', () => {
  const check = { id: 'X', title: 't', level: 'MUST' as const, source: 's' };
  test('a disagreement fails the case and keeps both sides', () => {
    const r = judge(check, {
      prediction: { value: ['a', 'b'], model: 'oracle', because: 'config order' },
      observed: ['b', 'a'],
      show: (v) => v.join(' → '),
    });
    expect(r.status).toBe('failed');
    expect(r.message).toBe('predicted a → b (oracle: config order); the kubelet: b → a');
    expect(r.comparison).toMatchObject({ predicted: ['a', 'b'], observed: ['b', 'a'], agree: false });
  });
  test('agreement passes', () => {
    expect(judge(check, { prediction: { value: 1, model: 'm', because: 'b' }, observed: 1, show: String }).status).toBe(
      'passed',
    );
  });
});
