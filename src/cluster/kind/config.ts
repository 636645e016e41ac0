// The kind cluster config (kind.x-k8s.io/v1alpha4) for an environment spec.
// Pure: the provider writes the files it names. Choices that keep credential
// tests honest:
// - kubelet flags go in via UNVERSIONED kubeadm patches, for InitConfiguration
//   (control plane) and JoinConfiguration (workers): kind converts the old map
//   form of kubeletExtraArgs to kubeadm v1beta4's list for 1.36+ only when a
//   patch names no apiVersion.
// - registries are reached under the same host name the image reference uses
//   (certs.d hosts.toml with server = that host), never through a mirror: the
//   CRI drops credentials when the contacted host differs from the one the
//   kubelet's credentials were issued for (containerd#10996).
// - feature gates are split: kubelet gates in the KubeletConfiguration patch,
//   API server gates as its --feature-gates, so a kubelet-only gate never
//   reaches a component that rejects it.
import { stringify } from 'yaml';
import type { EnvironmentSpec } from '../../api/spec/types.ts';

/** Where things live inside a node. */
export const NODE_PATHS = {
  pluginBinDir: '/etc/kubernetes/image-credential-provider/',
  providerConfig: '/etc/kubernetes/image-credential-provider-config.yaml',
  providerConfigDir: '/etc/kubernetes/image-credential-provider-config.d',
  certsDir: '/etc/containerd/certs.d',
} as const;

export interface KindRegistry {
  /** host[:port] exactly as image references name it (registry.test:5000). */
  host: string;
  tls: boolean;
  /** Host path of the CA certificate that signed the registry's certificate (TLS only). */
  caFile?: string;
}

export interface KindInputs {
  /** Cluster name (kind prefixes node containers with it). */
  name: string;
  nodeImage: string;
  workers?: number;
  /** Host paths the provider prepared. */
  pluginBinDir?: string;
  providerConfig?: { hostPath: string; isDirectory: boolean };
  /** Host dir that will hold <host>/hosts.toml (+ ca.crt) for each registry; mounted as the node's certs.d. */
  certsDir?: string;
  registries?: KindRegistry[];
}

export interface KindNode {
  role: 'control-plane' | 'worker';
  image: string;
  extraMounts?: Array<{ hostPath: string; containerPath: string; readOnly?: boolean }>;
}

export interface KindCluster {
  kind: 'Cluster';
  apiVersion: 'kind.x-k8s.io/v1alpha4';
  name: string;
  nodes: KindNode[];
  kubeadmConfigPatches: string[];
}

export function kindClusterConfig(spec: EnvironmentSpec, inputs: KindInputs): KindCluster {
  const mounts = nodeMounts(inputs);
  const node = (role: KindNode['role']): KindNode => ({
    role,
    image: inputs.nodeImage,
    ...(mounts.length > 0 ? { extraMounts: mounts } : {}),
  });
  return {
    kind: 'Cluster',
    apiVersion: 'kind.x-k8s.io/v1alpha4',
    name: inputs.name,
    nodes: [node('control-plane'), ...Array.from({ length: inputs.workers ?? 0 }, () => node('worker'))],
    kubeadmConfigPatches: kubeadmPatches(spec, inputs),
  };
}

function nodeMounts(inputs: KindInputs): NonNullable<KindNode['extraMounts']> {
  const mounts: NonNullable<KindNode['extraMounts']> = [];
  if (inputs.pluginBinDir)
    mounts.push({ hostPath: inputs.pluginBinDir, containerPath: NODE_PATHS.pluginBinDir, readOnly: true });
  if (inputs.providerConfig) {
    mounts.push({
      hostPath: inputs.providerConfig.hostPath,
      containerPath: inputs.providerConfig.isDirectory ? NODE_PATHS.providerConfigDir : NODE_PATHS.providerConfig,
      readOnly: true,
    });
  }
  if (inputs.certsDir && (inputs.registries?.length ?? 0) > 0)
    mounts.push({ hostPath: inputs.certsDir, containerPath: NODE_PATHS.certsDir, readOnly: true });
  return mounts;
}

/** kubelet flags from the spec: the credential provider pair plus --extra-args, as kubeadm's kubeletExtraArgs map. */
export function kubeletExtraArgs(spec: EnvironmentSpec, inputs: KindInputs): Record<string, string> {
  const args: Record<string, string> = {};
  for (const a of spec.kubelet.extraArgs) {
    const m = /^--?([^=]+)(?:=(.*))?$/.exec(a);
    if (m) args[m[1]!] = m[2] ?? 'true';
  }
  if (inputs.providerConfig) {
    args['image-credential-provider-config'] = inputs.providerConfig.isDirectory
      ? NODE_PATHS.providerConfigDir
      : NODE_PATHS.providerConfig;
  }
  if (inputs.pluginBinDir) args['image-credential-provider-bin-dir'] = NODE_PATHS.pluginBinDir;
  return args;
}

function kubeadmPatches(spec: EnvironmentSpec, inputs: KindInputs): string[] {
  const patches: string[] = [];
  const extra = kubeletExtraArgs(spec, inputs);
  if (Object.keys(extra).length > 0) {
    for (const kind of ['InitConfiguration', 'JoinConfiguration']) {
      patches.push(stringify({ kind, nodeRegistration: { kubeletExtraArgs: extra } }));
    }
  }
  const kubeletConfig: Record<string, unknown> = { ...spec.kubelet.config };
  if (Object.keys(spec.featureGates.kubelet).length > 0) {
    kubeletConfig.featureGates = {
      ...(kubeletConfig.featureGates as Record<string, boolean> | undefined),
      ...spec.featureGates.kubelet,
    };
  }
  if (Object.keys(kubeletConfig).length > 0)
    patches.push(stringify({ kind: 'KubeletConfiguration', ...kubeletConfig }));
  const apiGates = Object.entries(spec.featureGates.apiserver);
  if (apiGates.length > 0) {
    patches.push(
      stringify({
        kind: 'ClusterConfiguration',
        apiServer: { extraArgs: { 'feature-gates': apiGates.map(([k, v]) => `${k}=${v}`).join(',') } },
      }),
    );
  }
  return patches;
}

/**
 * certs.d/<host>/hosts.toml for a registry reached under its own name: the
 * server is the same host, so containerd treats it as the upstream (not a
 * mirror) and sends the kubelet's credentials to it.
 */
export function hostsToml(r: KindRegistry): string {
  const url = `${r.tls ? 'https' : 'http'}://${r.host}`;
  const lines = [`server = "${url}"`, '', `[host."${url}"]`, '  capabilities = ["pull", "resolve", "push"]'];
  if (r.tls && r.caFile) lines.push(`  ca = "${NODE_PATHS.certsDir}/${r.host}/ca.crt"`);
  return `${lines.join('\n')}\n`;
}

export function kindConfigYaml(c: KindCluster): string {
  return stringify(c, { lineWidth: 0 });
}
