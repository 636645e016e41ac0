import { describe, expect, test } from '@jest/globals';
import { parse, parseAllDocuments } from 'yaml';
import { applyDefaults } from '../../api/spec/defaults.ts';
import {
  CONTAINERD_CERTS_D_PATCH,
  INIT_SKIP_PHASES,
  kindClusterConfig,
  kindConfigYaml,
  kubeletExtraArgs,
  NODE_PATHS,
} from './config.ts';
import { ipv4Gateway, nodeHostsToml } from './registry-route.ts';

const spec = applyDefaults({
  kubeVersion: 'v1.37.1',
  featureGates: {
    kubelet: { KubeletEnsureSecretPulledImages: true },
    apiserver: { ServiceAccountNodeAudienceRestriction: true },
  },
  kubelet: {
    config: { imagePullCredentialsVerificationPolicy: 'AlwaysVerify', failCgroupV1: false },
    extraArgs: ['--v=4'],
  },
  credentialProvider: { plugins: { 'fake-plugin': '/tmp/fake-plugin' } },
});

const inputs = {
  name: 'credprov-default',
  nodeImage: 'kindest/node:v1.37.1',
  workers: 1,
  pluginBinDir: '/state/plugins',
  providerConfigRoot: '/state/provider-config',
  providerConfig: { nodePath: '/etc/kubernetes/credprov-provider-config/credential-provider-config.yaml' },
  certsDir: '/state/certs.d',
};

/** Each kubeadm patch as an object, by kind. */
function patches(yamlText: string): Record<string, Record<string, unknown>> {
  const cfg = parse(yamlText) as { kubeadmConfigPatches: string[] };
  return Object.fromEntries(
    cfg.kubeadmConfigPatches.map((p) => {
      const o = parse(p) as Record<string, unknown>;
      return [o.kind as string, o];
    }),
  );
}

describe('kind cluster config', () => {
  const text = kindConfigYaml(kindClusterConfig(spec, inputs));
  const cfg = parse(text) as {
    kind: string;
    apiVersion: string;
    name: string;
    nodes: Array<{ role: string; image: string; extraMounts: unknown[] }>;
  };

  test('is a single v1alpha4 Cluster document with the node image on every node', () => {
    expect(parseAllDocuments(text)).toHaveLength(1);
    expect(cfg).toMatchObject({ kind: 'Cluster', apiVersion: 'kind.x-k8s.io/v1alpha4', name: 'credprov-default' });
    expect(cfg.nodes.map((n) => [n.role, n.image])).toEqual([
      ['control-plane', 'kindest/node:v1.37.1'],
      ['worker', 'kindest/node:v1.37.1'],
    ]);
  });

  test('mounts the plugin bin dir, the provider config dir and the registry certs.d read-only into every node', () => {
    for (const n of cfg.nodes) {
      expect(n.extraMounts).toEqual([
        { hostPath: '/state/plugins', containerPath: NODE_PATHS.pluginBinDir, readOnly: true },
        { hostPath: '/state/provider-config', containerPath: NODE_PATHS.providerConfigRoot, readOnly: true },
        { hostPath: '/state/certs.d', containerPath: '/etc/containerd/certs.d', readOnly: true },
      ]);
    }
  });

  test('passes the credential provider flags through unversioned InitConfiguration and JoinConfiguration patches', () => {
    const p = patches(text);
    const expected = {
      v: '4',
      'image-credential-provider-config': inputs.providerConfig.nodePath,
      'image-credential-provider-bin-dir': NODE_PATHS.pluginBinDir,
    };
    expect(p.InitConfiguration).toEqual({
      kind: 'InitConfiguration',
      skipPhases: [...INIT_SKIP_PHASES],
      nodeRegistration: { kubeletExtraArgs: expected },
    });
    expect(p.JoinConfiguration).toEqual({
      kind: 'JoinConfiguration',
      nodeRegistration: { kubeletExtraArgs: expected },
    });
    // kind converts map-style kubeletExtraArgs to kubeadm v1beta4 lists only for patches without apiVersion.
    for (const patch of Object.values(p)) expect(patch).not.toHaveProperty('apiVersion');
  });

  test('puts kubelet config fragments and kubelet feature gates into a KubeletConfiguration patch', () => {
    expect(patches(text).KubeletConfiguration).toEqual({
      kind: 'KubeletConfiguration',
      imagePullCredentialsVerificationPolicy: 'AlwaysVerify',
      failCgroupV1: false,
      featureGates: { KubeletEnsureSecretPulledImages: true },
    });
  });

  test('gives API server feature gates to the API server only', () => {
    expect(patches(text).ClusterConfiguration).toEqual({
      kind: 'ClusterConfiguration',
      apiServer: { extraArgs: { 'feature-gates': 'ServiceAccountNodeAudienceRestriction=true' } },
    });
  });

  test('without a provider config the kubelet gets no credential provider flags (the dirs stay mounted, empty)', () => {
    const { providerConfig: _none, ...withoutProvider } = inputs;
    const args = kubeletExtraArgs(spec, withoutProvider);
    expect(args).toEqual({ v: '4' });
  });

  test('without plugins, config fragments or gates: certs.d mounted, kube-proxy and CoreDNS skipped, cgroup v1 allowed', () => {
    const bare = kindClusterConfig(applyDefaults({ kubeVersion: 'v1.36.4' }), {
      name: 'x',
      nodeImage: 'kindest/node:v1.36.4',
      certsDir: '/state/certs.d',
      pluginBinDir: '/state/plugins',
      providerConfigRoot: '/state/provider-config',
    });
    expect(bare.nodes).toEqual([
      {
        role: 'control-plane',
        image: 'kindest/node:v1.36.4',
        extraMounts: [
          { hostPath: '/state/plugins', containerPath: NODE_PATHS.pluginBinDir, readOnly: true },
          { hostPath: '/state/provider-config', containerPath: NODE_PATHS.providerConfigRoot, readOnly: true },
          { hostPath: '/state/certs.d', containerPath: NODE_PATHS.certsDir, readOnly: true },
        ],
      },
    ]);
    expect(bare.networking).toEqual({ kubeProxyMode: 'none' });
    expect(bare.containerdConfigPatches).toEqual([CONTAINERD_CERTS_D_PATCH]);
    expect(bare.kubeadmConfigPatches.map((p) => parse(p) as unknown)).toEqual([
      { kind: 'InitConfiguration', skipPhases: ['preflight', 'addon/kube-proxy', 'addon/coredns'] },
      { kind: 'KubeletConfiguration', failCgroupV1: false },
    ]);
  });
});

describe('registry routes into kind nodes', () => {
  test("name the registry's own address as the image host's server, with the CA at its node path (no mirror)", () => {
    expect(
      nodeHostsToml({
        imageHost: 'a.registry.test:443',
        address: '127.8.0.3',
        port: 5443,
        scheme: 'https',
        caCertPath: '/state/ca.crt',
      }),
    ).toBe('server = "https://127.8.0.3:5443"\nca = "/etc/containerd/certs.d/a.registry.test:443/ca.crt"\n');
  });

  test('name each mirror as a [host] entry before nothing else changes, its CA at its own node path', () => {
    const toml = nodeHostsToml({
      imageHost: 'origin.test',
      address: '127.8.0.3',
      port: 5443,
      scheme: 'https',
      mirrors: [{ address: '127.8.0.4', port: 6443, scheme: 'https', caCertPath: '/s/ca.crt', capabilities: ['pull'] }],
    });
    expect(toml).toBe(
      'server = "https://127.8.0.3:5443"\n\n[host."https://127.8.0.4:6443"]\n  capabilities = ["pull"]\n  ca = "/etc/containerd/certs.d/origin.test/mirror-0-ca.crt"\n',
    );
  });

  test('use plain http for a registry without TLS and name no CA', () => {
    const toml = nodeHostsToml({ imageHost: 'r.test', address: '127.0.0.9', port: 5000, scheme: 'http' });
    expect(toml).toBe('server = "http://127.0.0.9:5000"\n');
  });

  test("take the kind network's IPv4 gateway, whatever order docker lists the IPv6 subnet in", () => {
    expect(
      ipv4Gateway('[{"Subnet":"fc00:f853:ccd:e793::/64"},{"Subnet":"172.18.0.0/16","Gateway":"172.18.0.1"}]', 'kind'),
    ).toBe('172.18.0.1');
    expect(() => ipv4Gateway('[{"Subnet":"fc00::/64","Gateway":"fc00::1"}]', 'kind')).toThrow(/no IPv4 gateway/);
  });
});
