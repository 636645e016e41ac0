// Defaults for the environment spec: what you get from `credprov up` with no
// spec file. A partial spec (from YAML or a suite) is completed field by field.
import { hostname } from 'node:os';
import type { EnvironmentSpec } from './types.ts';

import { DEFAULT_KUBE_VERSION } from '../../versions/table.ts';

export { DEFAULT_KUBE_VERSION };

/** A spec as users write it: every field optional, nested objects partial. */
export type PartialSpec = Partial<
  Omit<EnvironmentSpec, 'featureGates' | 'kubelet' | 'apiserver' | 'timeouts' | 'kindCluster'>
> & {
  featureGates?: Partial<EnvironmentSpec['featureGates']>;
  kubelet?: Partial<EnvironmentSpec['kubelet']>;
  apiserver?: Partial<EnvironmentSpec['apiserver']>;
  timeouts?: Partial<EnvironmentSpec['timeouts']>;
  kindCluster?: Partial<NonNullable<EnvironmentSpec['kindCluster']>>;
};

export function applyDefaults(p: PartialSpec = {}): EnvironmentSpec {
  const spec: EnvironmentSpec = {
    name: p.name ?? 'default',
    provider: p.provider ?? 'auto',
    kubeVersion: p.kubeVersion ?? DEFAULT_KUBE_VERSION,
    featureGates: { kubelet: { ...p.featureGates?.kubelet }, apiserver: { ...p.featureGates?.apiserver } },
    kubelet: {
      // A node name distinct from the host's keeps the node's identity (and its client cert) ours.
      nodeName:
        p.kubelet?.nodeName ??
        `credprov-${hostname()
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-')
          .slice(0, 40)}`,
      ...(p.kubelet?.version ? { version: p.kubelet.version } : {}),
      config: { ...p.kubelet?.config },
      extraArgs: [...(p.kubelet?.extraArgs ?? [])],
    },
    apiserver: { extraArgs: [...(p.apiserver?.extraArgs ?? [])] },
    timeouts: { nodeReady: p.timeouts?.nodeReady ?? '90s' },
  };
  if (p.binDir !== undefined) spec.binDir = p.binDir;
  if (p.apiserver?.tokenWebhookConfigFile !== undefined)
    spec.apiserver.tokenWebhookConfigFile = p.apiserver.tokenWebhookConfigFile;
  if (p.apiserver?.authenticationConfigFile !== undefined)
    spec.apiserver.authenticationConfigFile = p.apiserver.authenticationConfigFile;
  if (p.credentialProvider !== undefined) {
    spec.credentialProvider = { ...p.credentialProvider, plugins: { ...p.credentialProvider.plugins } };
  }
  if (p.existing !== undefined) spec.existing = { ...p.existing };
  if (p.kindCluster !== undefined) spec.kindCluster = { ...p.kindCluster, workers: p.kindCluster.workers ?? 0 };
  return spec;
}
