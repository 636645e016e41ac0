import { describe, expect, test } from '@jest/globals';
import type { CredentialProviderConfig } from '../api/credentialprovider/types.ts';
import { providersForImage } from './providers.ts';

const provider = (name: string, matchImages: string[]) => ({
  name,
  matchImages,
  defaultCacheDuration: '1m',
  apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
});
const cfg: CredentialProviderConfig = {
  apiVersion: 'kubelet.config.k8s.io/v1',
  kind: 'CredentialProviderConfig',
  providers: [
    provider('zeta', ['127.0.0.1:5000']),
    provider('alpha', ['127.0.0.1:5000/team', 'docker.io']),
    provider('mid', ['quay.io']),
  ],
};

describe('providersForImage', () => {
  test('lists every provider in config order and marks those the kubelet execs', () => {
    const v = providersForImage(cfg, '127.0.0.1:5000/team/app:1', '1.37');
    expect(v.order).toBe('config');
    expect(v.providers.map((p) => [p.name, p.invoked])).toEqual([
      ['zeta', true],
      ['alpha', true],
      ['mid', false],
    ]);
    expect(v.invoked).toEqual(['zeta', 'alpha']);
  });

  test('explains each pattern that does not match', () => {
    const v = providersForImage(cfg, 'nginx', '1.33');
    const alpha = v.providers.find((p) => p.name === 'alpha')!;
    expect(alpha.patterns.map((p) => p.result.match)).toEqual([false, true]);
    expect(alpha.patterns[0]!.result.reason).toMatch(/^port differs/);
    expect(v.image.repository).toBe('docker.io/library/nginx');
  });

  test('reports no invoked provider when nothing matches', () => {
    expect(providersForImage(cfg, 'gcr.io/x/y').invoked).toEqual([]);
  });

  test('rejects a version outside the table', () => {
    expect(() => providersForImage(cfg, 'nginx', '1.20')).toThrow(/outside the versions credprov models/);
  });
});
