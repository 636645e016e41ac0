// How fast the matching oracle and config validation are (explain on large
// configs, certify suites calling matchImage per invocation).
// Run: node scripts/bench-matching.ts
import { performance } from 'node:perf_hooks';
import { parseProviderConfig } from '../src/api/credentialprovider/config.ts';
import { decodeResponse } from '../src/api/credentialprovider/response.ts';
import { matchImage, matchPattern } from '../src/matching/url.ts';

function bench(name: string, n: number, fn: (i: number) => unknown): void {
  for (let i = 0; i < Math.min(n, 1000); i++) fn(i);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  const ms = performance.now() - t0;
  console.log(`${name.padEnd(44)} ${((ms / n) * 1000).toFixed(2).padStart(8)} µs/op  (${n} ops, ${ms.toFixed(0)} ms)`);
}

const patterns = ['*.dkr.ecr.*.amazonaws.com', '127.0.0.1:5000', 'docker.io/library', '*.reg.io', 'reg.io/team/'];
bench('matchPattern (raw strings)', 100_000, (i) =>
  matchPattern(patterns[i % patterns.length]!, '123.dkr.ecr.us-east-1.amazonaws.com/team/app'),
);
bench('matchImage (normalise + match)', 100_000, (i) => matchImage(patterns[i % patterns.length]!, 'nginx:1.25'));

const providers = Array.from(
  { length: 100 },
  (_, i) =>
    `  - name: p${i}\n    matchImages: ["*.reg${i}.io", "127.0.0.1:${5000 + i}"]\n    defaultCacheDuration: "${i}m"\n    apiVersion: credentialprovider.kubelet.k8s.io/v1\n`,
).join('');
const cfg = `apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n${providers}`;
bench('parseProviderConfig, 100 providers', 200, () => parseProviderConfig(cfg, 'bench.yaml'));

const resp = JSON.stringify({
  apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
  kind: 'CredentialProviderResponse',
  cacheKeyType: 'Registry',
  cacheDuration: '5m',
  auth: { 'reg.io': { username: 'u', password: 'p' } },
});
bench('decodeResponse', 100_000, () => decodeResponse(resp, 'credentialprovider.kubelet.k8s.io/v1'));
