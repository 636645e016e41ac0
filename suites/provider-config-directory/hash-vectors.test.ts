// The config hash model against hashes real kubelets published for the
// suite's merged directory (CFGDIR-CONFIG-HASH, `credprov run --suite
// provider-config-directory`, 2026-11-26): the files are the plan's, for the
// lab registry host of that run.
import { describe, expect, test } from '@jest/globals';
import { configHash } from '../../src/model/provider-config-load.ts';
import { fileText, MERGED } from './plan.ts';

const VECTORS = [
  {
    kubelet: 'v1.34.5 (under kube-apiserver v1.37.1)',
    host: 'cfgdir-c31ed2.registry.test:5000',
    hash: 'sha256:b81081f4c4dacbb38fca073bae44401d731b27c4eb8b6b6efe813602901e5ef3',
  },
  {
    kubelet: 'v1.37.1',
    host: 'cfgdir-865932.registry.test:5000',
    hash: 'sha256:dcf7d298d82be891ff2fd4ff80a66bb4c45b3872eb9324576204e0ec1ce0bb0c',
  },
];

describe('config hash vectors from real kubelets', () => {
  test.each(VECTORS)('kubelet $kubelet: $hash', ({ host, hash }) => {
    const read = MERGED.files.filter((f) => f.providers).map((f) => Buffer.from(fileText(f, host)));
    expect(configHash(read)).toBe(hash);
  });
});
