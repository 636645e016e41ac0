import { describe, test, expect } from '@jest/globals';
import { parse } from 'yaml';
import { applyDefaults } from '../../api/spec/defaults.ts';
import { pkiPaths } from './certs.ts';
import type { LocalState, StepContext } from './context.ts';
import { hostIdentity } from './identity.ts';
import { firstNode, nodesOf, secondNode } from './nodes.ts';
import { applyChange } from './index.ts';
import { layoutFor } from './layout.ts';
import { apiServerArgs } from './steps/startApiServer.ts';
import { cniConflist, containerdConfig } from './steps/startContainerd.ts';
import { kubeletArgs } from './steps/startKubelet.ts';
import { controllerManagerArgs, schedulerArgs, schedulerConfiguration } from './steps/startControllers.ts';
import { kubeletConfiguration } from './steps/writeKubeletConfig.ts';
import { mountsUnder } from './leftovers.ts';
import { containerdSupports } from './binaries.ts';
import { noopLogger } from '../../core/logger.ts';

function ctx(partial: Parameters<typeof applyDefaults>[0] = {}, node: 'a' | 'b' = 'a'): StepContext {
  const spec = applyDefaults({ name: 't', kubelet: { nodeName: 'node-t' }, ...partial });
  const layout = layoutFor('t', { CREDPROV_STATE_DIR: '/state' });
  const state: LocalState = {
    name: 't',
    spec,
    binaries: {
      binDir: '/k',
      kubelet: '/k/kubelet',
      kubeletVersion: 'v1.37.1',
      kubeApiserver: '/k/kube-apiserver',
      kubectl: '/k/kubectl',
      kubeControllerManager: '/k/kube-controller-manager',
      kubeScheduler: '/k/kube-scheduler',
      etcd: '/usr/bin/etcd',
      containerd: '/c/containerd',
      ctr: '/c/ctr',
      containerdVersion: 'v2.3.7',
      runtimePath: '/c:/usr/sbin',
      version: 'v1.37.1',
    },
    ports: {
      etcdClient: 2379,
      etcdPeer: 2380,
      apiserver: 6443,
      kubelet: 10250,
      kubeletHealthz: 10248,
      controllerManager: 10257,
      scheduler: 10259,
    },
    sandboxImageRef: 'localhost/credprov/pause:1',
    cniBridge: 'cp12345678',
    podSubnet: '10.210.3.0/24',
    nodeLink: 'cpn12345678',
    nodeIP: '172.29.1.2',
    secondNode: {
      name: 'node-t-b',
      ports: { kubelet: 10350, kubeletHealthz: 10348 },
      nodeIP: '172.30.1.2',
      cniBridge: 'cpb12345678',
      podSubnet: '10.220.4.0/24',
    },
  };
  const pki = pkiPaths(layout.certs);
  return {
    state,
    node: node === 'a' ? firstNode(state, layout, pki) : secondNode(state, layout, pki)!,
    layout,
    pki,
    log: noopLogger,
    sandboxImage: { ref: 'localhost/credprov/pause:1', writeArchive: async () => {} },
    apiServerUrl: 'https://127.0.0.1:6443',
  };
}

describe('kubelet configuration', () => {
  test('runs on cgroupfs, tolerates cgroup v1 and swap, and listens on the node address only', () => {
    const c = kubeletConfiguration(ctx());
    expect(c).toMatchObject({
      cgroupDriver: 'cgroupfs',
      failCgroupV1: false,
      failSwapOn: false,
      address: '172.29.1.2',
      readOnlyPort: 0,
      containerRuntimeEndpoint: 'unix:///state/env/t/run/cd.sock',
    });
  });

  test('merges spec fragments over the base, nested maps field by field', () => {
    const c = kubeletConfiguration(
      ctx({
        kubelet: {
          config: {
            imagePullCredentialsVerificationPolicy: 'AlwaysVerify',
            evictionHard: { 'memory.available': '1Gi' },
          },
        },
        featureGates: { kubelet: { KubeletEnsureSecretPulledImages: true } },
      }),
    );
    expect(c.imagePullCredentialsVerificationPolicy).toBe('AlwaysVerify');
    expect(c.evictionHard).toMatchObject({ 'memory.available': '1Gi', 'nodefs.available': '1%' });
    expect(c.featureGates).toEqual({ KubeletEnsureSecretPulledImages: true });
  });

  test('passes the credential provider flags only when a provider is configured', () => {
    expect(kubeletArgs(ctx()).some((a) => a.startsWith('--image-credential-provider'))).toBe(false);
    const args = kubeletArgs(ctx({ credentialProvider: { configFile: '/cfg/dir', plugins: {} } }));
    expect(args).toContain('--image-credential-provider-config=/cfg/dir');
    expect(args).toContain('--image-credential-provider-bin-dir=/state/env/t/plugins');
    expect(args).toContain('--hostname-override=node-t');
  });
});

describe('kube-controller-manager and kube-scheduler', () => {
  test('listen on loopback with a serving cert of the cluster CA, so nothing is written to /var/run/kubernetes', () => {
    for (const args of [controllerManagerArgs(ctx()), schedulerArgs(ctx())]) {
      expect(args).toEqual(
        expect.arrayContaining(['--bind-address=127.0.0.1', '--tls-cert-file=/state/env/t/certs/loopback-serving.crt']),
      );
      expect(args.some((a) => a.startsWith('--cert-dir'))).toBe(false);
    }
    expect(controllerManagerArgs(ctx())).toEqual(
      expect.arrayContaining([
        '--secure-port=10257',
        '--use-service-account-credentials=true',
        '--service-account-private-key-file=/state/env/t/certs/sa.key',
        '--leader-elect=false',
      ]),
    );
    expect(schedulerArgs(ctx())).toContain('--secure-port=10259');
  });

  test('the scheduler reads a v1 KubeSchedulerConfiguration with its own kubeconfig and no leader election', () => {
    expect(schedulerConfiguration(ctx())).toEqual(
      expect.objectContaining({
        apiVersion: 'kubescheduler.config.k8s.io/v1',
        clientConnection: { kubeconfig: '/state/env/t/config/scheduler.kubeconfig' },
        leaderElection: { leaderElect: false },
      }),
    );
  });
});

describe('kube-apiserver flags', () => {
  test('authorize nodes with Node,RBAC and NodeRestriction and issue service-account tokens', () => {
    const args = apiServerArgs(ctx({ featureGates: { apiserver: { B: false, A: true } } }));
    expect(args).toEqual(
      expect.arrayContaining([
        '--authorization-mode=Node,RBAC',
        '--enable-admission-plugins=NodeRestriction',
        '--service-account-issuer=https://127.0.0.1:6443',
        '--api-audiences=https://127.0.0.1:6443',
        '--bind-address=127.0.0.1',
        '--feature-gates=A=true,B=false',
      ]),
    );
    expect(args.some((a) => a.startsWith('--authentication-token-webhook'))).toBe(false);
  });

  test('add token webhook authentication when the spec names a webhook config', () => {
    const args = apiServerArgs(ctx({ apiserver: { tokenWebhookConfigFile: '/w.kubeconfig' } }));
    expect(args).toEqual(
      expect.arrayContaining([
        '--authentication-token-webhook-config-file=/w.kubeconfig',
        '--authentication-token-webhook-version=v1',
      ]),
    );
  });

  test('add --authentication-config beside the webhook when the spec names an AuthenticationConfiguration', () => {
    const args = apiServerArgs(
      ctx({ apiserver: { tokenWebhookConfigFile: '/w.kubeconfig', authenticationConfigFile: '/a.yaml' } }),
    );
    expect(args).toEqual(
      expect.arrayContaining([
        '--authentication-token-webhook-config-file=/w.kubeconfig',
        '--authentication-config=/a.yaml',
      ]),
    );
    expect(apiServerArgs(ctx()).some((a) => a.startsWith('--authentication-config'))).toBe(false);
  });
});

describe('containerd configuration', () => {
  test('keeps root, state and socket under the environment and points config_path at its certs.d', () => {
    const toml = containerdConfig(ctx());
    expect(toml).toContain('root = "/state/env/t/data/containerd"');
    expect(toml).toContain('address = "/state/env/t/run/cd.sock"');
    expect(toml).toContain('sandbox_image = "localhost/credprov/pause:1"');
    expect(toml).toContain('SystemdCgroup = false');
    expect(toml).toContain('config_path = "/state/env/t/config/certs.d"');
    expect(toml).toContain('restrict_oom_score_adj = true');
  });

  test('the CNI conflist is a bridge on the environment subnet', () => {
    const c = JSON.parse(cniConflist('credprov-t', 'cp12345678', '10.210.3.0/24'));
    expect(c.plugins[0]).toMatchObject({
      type: 'bridge',
      bridge: 'cp12345678',
      ipam: { ranges: [[{ subnet: '10.210.3.0/24' }]] },
    });
  });
});

describe('the second node', () => {
  const withProvider = {
    credentialProvider: { configFile: '/cfg/dir', plugins: {} },
    kubelet: { nodeName: 'node-t', config: { maxPods: 7 }, extraArgs: ['--v=5'] },
    featureGates: { kubelet: { KubeletEnsureSecretPulledImages: false } },
  };

  test("has its own name, containerd, kubelet root, ports, address and cgroup root inside the first node's", () => {
    const a = kubeletConfiguration(ctx());
    const b = kubeletConfiguration(ctx({}, 'b'));
    expect(b).toMatchObject({
      address: '172.30.1.2',
      port: 10350,
      healthzPort: 10348,
      containerRuntimeEndpoint: 'unix:///state/env/t/run/cd-b.sock',
      cgroupRoot: '/credprov-t/node-b',
      podLogsDir: '/state/env/t/data/b/pod-logs',
    });
    expect(a).toMatchObject({ cgroupRoot: '/credprov-t', podLogsDir: '/state/env/t/data/pod-logs' });
    const args = kubeletArgs(ctx({}, 'b'));
    expect(args).toEqual(
      expect.arrayContaining([
        '--hostname-override=node-t-b',
        '--node-ip=172.30.1.2',
        '--kubeconfig=/state/env/t/config/b/kubelet.kubeconfig',
        '--root-dir=/state/env/t/data/b/kubelet',
        '--config=/state/env/t/config/b/kubelet.yaml',
      ]),
    );
    const toml = containerdConfig(ctx({}, 'b'));
    expect(toml).toContain('root = "/state/env/t/data/b/containerd"');
    expect(toml).toContain('state = "/state/env/t/run/b/containerd"');
    expect(toml).toContain('address = "/state/env/t/run/cd-b.sock"');
    expect(toml).toContain('conf_dir = "/state/env/t/config/b/cni"');
    // NRI's host-wide default socket would let one containerd's start fail on the other's.
    expect(toml).toContain('socket_path = "/state/env/t/run/cd-b.sock.nri"');
    expect(containerdConfig(ctx())).toContain('socket_path = "/state/env/t/run/cd.sock.nri"');
  });

  test("runs a plain kubelet: none of the first node's provider, fragments, flags or gates", () => {
    const b = ctx(withProvider, 'b');
    expect(kubeletArgs(b).some((x) => x.startsWith('--image-credential-provider') || x === '--v=5')).toBe(false);
    expect(kubeletConfiguration(b)).toMatchObject({ featureGates: {} });
    expect(kubeletConfiguration(b).maxPods).toBeUndefined();
    expect(kubeletConfiguration(ctx(withProvider)).maxPods).toBe(7);
    // The control plane's kubelet, even when the first node runs another version.
    expect(b.node.kubeletBinary).toBe('/k/kubelet');
  });

  test("its CNI network, bridge, address and subnet are never the first node's, nor any first node's", () => {
    for (const name of ['default', 't', 'e2e-othernode', 'x-b']) {
      const id = hostIdentity(name);
      expect(id.second.cniNetwork).toBe(`${id.cniNetwork}.b`);
      expect(id.second.cniBridge).not.toBe(id.cniBridge);
      expect(id.second.cniBridge.length).toBeLessThanOrEqual(15);
      expect(id.second.podSubnet).not.toBe(id.podSubnet);
      expect(id.second.nodeIP.startsWith('172.30.')).toBe(true);
      expect(id.nodeIP.startsWith('172.29.')).toBe(true);
    }
  });

  test('an environment saved before the second node existed has one node', () => {
    const c = ctx();
    const { secondNode: _b, ...old } = c.state;
    expect(nodesOf(old, c.layout, c.pki).map((n) => n.name)).toEqual(['node-t']);
    expect(nodesOf(c.state, c.layout, c.pki).map((n) => n.name)).toEqual(['node-t', 'node-t-b']);
  });
});

describe('restartKubelet changes', () => {
  test('replace kubelet gates and fields, keep the rest, and can drop the credential provider', () => {
    const spec = applyDefaults({
      kubelet: { nodeName: 'n', extraArgs: ['--v=4'] },
      featureGates: { kubelet: { A: true }, apiserver: { S: true } },
      credentialProvider: { configFile: '/c', plugins: {} },
    });
    const next = applyChange(spec, {
      kubelet: { config: { x: 1 } },
      featureGates: { B: false },
      credentialProvider: null,
    });
    expect(next.kubelet).toEqual({ nodeName: 'n', extraArgs: ['--v=4'], config: { x: 1 } });
    expect(next.featureGates).toEqual({ kubelet: { B: false }, apiserver: { S: true } });
    expect(next.credentialProvider).toBeUndefined();
  });
});

describe('mountsUnder', () => {
  test('lists mounts at or below the roots, deepest first, and nothing else', () => {
    const info = [
      '30 1 0:1 / / rw - ext4 /dev/vda rw',
      '40 30 0:2 / /state/env/t/data/containerd/snap/1/fs rw - overlay overlay rw',
      '41 30 0:3 / /state/env/t/data/kubelet/pods/x/volumes/kube-api-access rw - tmpfs tmpfs rw',
      '42 30 0:4 / /state/env/other/x rw - tmpfs tmpfs rw',
      '43 30 0:5 / /state/env/t2/x rw - tmpfs tmpfs rw',
      '44 27 0:4 net:[4026532178] /run/netns/cni-1 rw - nsfs nsfs rw',
      '45 30 0:6 / /state/env/t/with\\040space rw - tmpfs tmpfs rw',
    ].join('\n');
    expect(mountsUnder(info, ['/state/env/t', '/run/netns/cni-1'])).toEqual([
      '/state/env/t/data/kubelet/pods/x/volumes/kube-api-access',
      '/state/env/t/data/containerd/snap/1/fs',
      '/state/env/t/with space',
      '/run/netns/cni-1',
    ]);
  });
});

test('the kubelet config is valid YAML-serialisable data', () => {
  expect(() => parse(JSON.stringify(kubeletConfiguration(ctx())))).not.toThrow();
});

describe('containerdSupports', () => {
  test('accepts a patch at or above the minimum of a supported minor line, and nothing else', () => {
    const matrix = ['2.3.0', '2.2.0'];
    expect(containerdSupports('v2.3.7', matrix)).toBe(true);
    expect(containerdSupports('2.2.0', matrix)).toBe(true);
    expect(containerdSupports('v1.6.20~ds1', matrix)).toBe(false);
    expect(containerdSupports('v1.7.27', ['1.7.28'])).toBe(false);
    expect(containerdSupports('unknown', matrix)).toBe(false);
  });
});
