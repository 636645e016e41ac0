// The kind cluster config (kind.x-k8s.io/v1alpha4) for an environment spec.
// Pure: the provider writes the files it names. Choices that keep credential
// tests honest:
// - kubelet flags go in via UNVERSIONED kubeadm patches, for InitConfiguration
//   (control plane) and JoinConfiguration (workers): kind converts the old map
//   form of kubeletExtraArgs to kubeadm v1beta4's list for 1.36+ only when a
//   patch names no apiVersion.
// - containerd reads registry hosts from certs.d (config_path), mounted from
//   the state dir into every node, so routes added while the cluster runs
//   reach every node's containerd. Each route names the registry itself as
//   the image host's `server`, never a mirror (registry-route.ts).
// - feature gates are split: kubelet gates in the KubeletConfiguration patch,
//   API server gates as its --feature-gates, so a kubelet-only gate never
//   reaches a component that rejects it.
// - no kube-proxy and no CoreDNS (kubeProxyMode none, kubeadm's addon phases
//   skipped): credential tests use no Services, and neither image can be
//   built offline. Published kindest/node images carry both; skipping them
//   there too keeps the two kinds of node image alike.
// - failCgroupV1: false, so the kubelet (1.35+) also runs on cgroup v1 hosts.
import { stringify } from 'yaml';
import type { EnvironmentSpec } from '../../api/spec/types.ts';

/** Where things live inside a node. */
export const NODE_PATHS = {
  pluginBinDir: '/etc/kubernetes/image-credential-provider/',
  /** Holds the provider config (a file, or a config directory): mounted whole, so a restart can switch between them. */
  providerConfigRoot: '/etc/kubernetes/credprov-provider-config',
  certsDir: '/etc/containerd/certs.d',
} as const;

export interface KindInputs {
  /** Cluster name (kind prefixes node containers with it). */
  name: string;
  nodeImage: string;
  workers?: number;
  /** Host paths the provider prepared. */
  /** Host dirs mounted into every node whether or not the spec has a provider yet: restartKubelet fills them. */
  pluginBinDir: string;
  providerConfigRoot: string;
  /** The provider config as the kubelet's flag names it: a path under NODE_PATHS.providerConfigRoot. */
  providerConfig?: { nodePath: string };
  /** Host dir holding <host>/hosts.toml (+ ca.crt) for each routed registry; mounted as every node's certs.d. */
  certsDir: string;
  /** Host dirs every node mounts at the same path: what a plugin running in a node reads (Node, credprov's fakes) and writes (the exchange dir). */
  samePaths?: Array<{ path: string; readOnly: boolean }>;
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
  networking: { kubeProxyMode: 'none' };
  containerdConfigPatches: string[];
  nodes: KindNode[];
  kubeadmConfigPatches: string[];
}

/** containerd reads per-host registry config from certs.d (kind's own config does not set it). */
export const CONTAINERD_CERTS_D_PATCH = `[plugins."io.containerd.grpc.v1.cri".registry]
  config_path = "${'/etc/containerd/certs.d'}"`;

/** kind's own skipPhases (preflight) plus the two addons credprov leaves out. */
export const INIT_SKIP_PHASES = ['preflight', 'addon/kube-proxy', 'addon/coredns'] as const;

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
    networking: { kubeProxyMode: 'none' },
    containerdConfigPatches: [CONTAINERD_CERTS_D_PATCH],
    nodes: [node('control-plane'), ...Array.from({ length: inputs.workers ?? 0 }, () => node('worker'))],
    kubeadmConfigPatches: kubeadmPatches(spec, inputs),
  };
}

function nodeMounts(inputs: KindInputs): NonNullable<KindNode['extraMounts']> {
  const mounts: NonNullable<KindNode['extraMounts']> = [];
  mounts.push({ hostPath: inputs.pluginBinDir, containerPath: NODE_PATHS.pluginBinDir, readOnly: true });
  mounts.push({ hostPath: inputs.providerConfigRoot, containerPath: NODE_PATHS.providerConfigRoot, readOnly: true });
  mounts.push({ hostPath: inputs.certsDir, containerPath: NODE_PATHS.certsDir, readOnly: true });
  for (const m of inputs.samePaths ?? [])
    mounts.push({ hostPath: m.path, containerPath: m.path, readOnly: m.readOnly });
  return mounts;
}

/**
 * The spec's KubeletConfiguration fragment as a kind node may take it:
 * without staticPodPath, where kubeadm keeps the control plane's own pods
 * (a suite that writes static pods on this host needs capability kubeletFiles,
 * which kind does not have).
 */
export function nodeKubeletConfig(spec: EnvironmentSpec): Record<string, unknown> {
  const { staticPodPath: _hostOnly, ...config } = spec.kubelet.config;
  return config;
}

/** kubelet flags from the spec: the credential provider pair plus --extra-args, as kubeadm's kubeletExtraArgs map. */
export function kubeletExtraArgs(spec: EnvironmentSpec, inputs: KindInputs): Record<string, string> {
  const args: Record<string, string> = {};
  for (const a of spec.kubelet.extraArgs) {
    const m = /^--?([^=]+)(?:=(.*))?$/.exec(a);
    if (m) args[m[1]!] = m[2] ?? 'true';
  }
  if (inputs.providerConfig) {
    args['image-credential-provider-config'] = inputs.providerConfig.nodePath;
    args['image-credential-provider-bin-dir'] = NODE_PATHS.pluginBinDir;
  }
  return args;
}

function kubeadmPatches(spec: EnvironmentSpec, inputs: KindInputs): string[] {
  const patches: string[] = [];
  const extra = kubeletExtraArgs(spec, inputs);
  for (const kind of ['InitConfiguration', 'JoinConfiguration']) {
    if (kind === 'JoinConfiguration' && Object.keys(extra).length === 0) continue;
    patches.push(
      stringify({
        kind,
        ...(kind === 'InitConfiguration' ? { skipPhases: [...INIT_SKIP_PHASES] } : {}),
        ...(Object.keys(extra).length > 0 ? { nodeRegistration: { kubeletExtraArgs: extra } } : {}),
      }),
    );
  }
  const kubeletConfig: Record<string, unknown> = { failCgroupV1: false, ...nodeKubeletConfig(spec) };
  if (Object.keys(spec.featureGates.kubelet).length > 0) {
    kubeletConfig.featureGates = {
      ...(kubeletConfig.featureGates as Record<string, boolean> | undefined),
      ...spec.featureGates.kubelet,
    };
  }
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

export function kindConfigYaml(c: KindCluster): string {
  return stringify(c, { lineWidth: 0 });
}
