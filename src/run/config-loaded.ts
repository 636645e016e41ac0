// Proof that the kubelet loaded the credential provider config credprov wrote:
// the hash it publishes on /metrics (kubelet_credential_provider_config_info,
// 1.34+) against the hash credprov computes from the same bytes (inline
// config: the one serializer every provider writes it with; a configFile or
// config directory: the files here, which providers copy byte for byte).
import { readFile, stat } from 'node:fs/promises';
import { configDirectoryFiles } from '../api/credentialprovider/config.ts';
import { providerConfigText } from '../api/credentialprovider/config-text.ts';
import type { CredentialProviderSpec } from '../api/spec/types.ts';
import { kubeApi } from '../cluster/api.ts';
import type { Environment } from '../cluster/provider.ts';
import { configHash } from '../model/provider-config-load.ts';
import { skipped } from '../report/checks.ts';
import type { Check, CheckResult } from '../report/model.ts';
import { behaviourFor } from '../versions/table.ts';
import { judge } from './prediction.ts';

/** The files the kubelet reads for this provider spec, in its order, as bytes. */
export async function configBytesOf(cp: CredentialProviderSpec): Promise<Array<{ path: string; bytes: Buffer }>> {
  if (!cp.configFile) {
    if (!cp.config) throw new Error('credentialProvider has neither config nor configFile');
    return [{ path: '(inline config)', bytes: Buffer.from(providerConfigText(cp.config)) }];
  }
  const files = (await stat(cp.configFile)).isDirectory() ? await configDirectoryFiles(cp.configFile) : [cp.configFile];
  return Promise.all(files.map(async (path) => ({ path, bytes: await readFile(path) })));
}

/** The hash the kubelet should publish for this provider spec. */
export async function expectedConfigHash(cp: CredentialProviderSpec): Promise<string> {
  return configHash((await configBytesOf(cp)).map((f) => f.bytes));
}

/** The hash label(s) of the config-info gauge on the kubelet's /metrics (node proxy), and the raw lines. */
export async function observeConfigHash(
  env: Environment,
  metric: string,
): Promise<{ hashes: string[]; lines: string[] }> {
  const text = await (await kubeApi(env)).raw(`/api/v1/nodes/${encodeURIComponent(env.nodeName)}/proxy/metrics`);
  return parseConfigInfo(text, metric);
}

export function parseConfigInfo(text: string, metric: string): { hashes: string[]; lines: string[] } {
  const lines = text.split('\n').filter((l) => l.startsWith(`${metric}{`) || l.startsWith(`${metric} `));
  const hashes = lines.flatMap((l) => {
    const m = /hash="([^"]*)"/.exec(l);
    return m && Number(l.trim().split(/\s+/).pop()) === 1 ? [m[1]!] : [];
  });
  return { hashes, lines };
}

/**
 * Judges `check`: the kubelet publishes exactly the hash of the config
 * credprov wrote. Skipped, with the reason, on a kubelet without the metric.
 */
export async function assertKubeletLoadedConfig(
  check: Check,
  env: Environment,
  startedAt = new Date(),
): Promise<CheckResult> {
  const kubeletVersion = env.kubeletVersion ?? env.kubeVersion;
  const metric = behaviourFor(kubeletVersion).configInfoMetric;
  if (!metric)
    return skipped(
      check,
      `kubelet ${kubeletVersion} publishes no credential provider config hash (kubelet_credential_provider_config_info is 1.34+, k/k PR #133016)`,
    );
  const cp = env.spec.credentialProvider;
  if (!cp) throw new Error(`environment ${env.name} runs its kubelet without a credential provider config`);
  const files = await configBytesOf(cp);
  const expected = configHash(files.map((f) => f.bytes));
  const observed = await observeConfigHash(env, metric);
  return judge(check, {
    prediction: {
      value: [expected],
      model: 'config hash model (src/model/provider-config-load.ts, kubelet config.go readCredentialProviderConfig)',
      because: `sha256 over ${files.map((f) => `${f.path} (${f.bytes.length} bytes)`).join(', ')}, each length-prefixed (uint64 big-endian)`,
    },
    observed: observed.hashes,
    show: (v) => (v.length === 0 ? `no ${metric} sample` : `${metric}{hash=${v.join(', ')}}`),
    evidence: [
      { kind: 'text', label: `kubelet /metrics lines for ${metric}`, text: observed.lines.join('\n') || '(none)' },
    ],
    startedAt,
  });
}
