// restartKubelet: only the first node's kubelet restarts (the control plane
// and the second node keep their pids and their pods), with a new config, and
// with another kubelet binary (version skew: an older minor's kubelet against
// the default API server).
import { afterAll, describe, expect } from '@jest/globals';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import type { V1Pod } from '@kubernetes/client-node';
import { kubeApi } from '../../src/cluster/api.ts';
import { SANDBOX_IMAGE_REF } from '../../src/cluster/local/sandbox-image.ts';
import { poll } from '../../src/run/kit.ts';
import { applyDefaults } from '../../src/api/spec/defaults.ts';
import { kubectlJson } from '../../src/cluster/kubectl.ts';
import { localProvider } from '../../src/cluster/local/index.ts';
import { layoutFor } from '../../src/cluster/local/layout.ts';
import { recordedPid } from '../../src/cluster/local/daemon.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { kubeCacheRoot, listEntries } from '../../src/cluster/binaries/index.ts';
import { cacheDir } from '../../src/core/paths.ts';
import { parseKubeVersion, SKEW_KUBELET_VERSION } from '../../src/versions/table.ts';
import { silentProgress } from '../../src/core/progress.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const ENV_NAME = e2eEnvName('restart');
const provider = localProvider();
const available = await provider.isAvailable();
const it = testIf(
  all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }),
);
const skewMinor = parseKubeVersion(SKEW_KUBELET_VERSION).minor;
const older = (await listEntries(kubeCacheRoot(cacheDir()), ['kubelet']).catch(() => [])).find(
  (m) => parseKubeVersion(m.version).minor === skewMinor,
);
const itSkew = testIf(
  older
    ? { ok: true }
    : {
        ok: false,
        reason: `no cached ${SKEW_KUBELET_VERSION}.x kubelet (scripts/test.sh builds it: credprov binaries ensure --kube-version ${SKEW_KUBELET_VERSION} --only kubelet --skip-containerd)`,
      },
);
const layout = layoutFor(ENV_NAME);

interface NodeJson {
  status: { nodeInfo: { kubeletVersion: string } };
}
const kubeletVersion = async (env: Environment) =>
  (await kubectlJson<NodeJson>({ kubectl: env.kubectl, kubeconfig: env.kubeconfig }, ['get', 'node', env.nodeName]))
    .status.nodeInfo.kubeletVersion;
const controlPlanePids = async () =>
  Promise.all(['etcd', 'kube-apiserver', 'containerd'].map((n) => recordedPid(layout.pids, n)));

describe('restartKubelet on the local provider', () => {
  let env: Environment | undefined;
  afterAll(async () => {
    await provider.down(ENV_NAME);
  });

  it('RESTART-CONFIG: a new kubelet config takes effect while etcd, kube-apiserver and containerd keep running', async () => {
    env = await provider.up(applyDefaults({ name: ENV_NAME }), silentProgress);
    const before = await controlPlanePids();
    const kubeletBefore = await recordedPid(layout.pids, 'kubelet');
    env = await provider.restartKubelet(env, { kubelet: { config: { maxPods: 17 } } }, silentProgress);
    expect(await controlPlanePids()).toEqual(before);
    expect(await recordedPid(layout.pids, 'kubelet')).not.toBe(kubeletBefore);
    const node = await kubectlJson<{ status: { capacity: { pods: string } } }>(
      { kubectl: env.kubectl, kubeconfig: env.kubeconfig },
      ['get', 'node', env.nodeName],
    );
    expect(node.status.capacity.pods).toBe('17');
  }, 240_000);

  itSkew(
    `RESTART-SKEW: the kubelet binary can be swapped for an older minor (${SKEW_KUBELET_VERSION} kubelet under the default API server)`,
    async () => {
      env ??= await provider.up(applyDefaults({ name: ENV_NAME }), silentProgress);
      env = await provider.restartKubelet(
        env,
        { kubeletBinary: join(kubeCacheRoot(cacheDir()), older!.version, 'kubelet') },
        silentProgress,
      );
      expect(await kubeletVersion(env)).toBe(older!.version);
    },
    240_000,
  );

  it("RESTART-SECOND-NODE: the second node's kubelet, containerd and pod live through the first kubelet's restart; neither containerd holds the other node's containers", async () => {
    env ??= await provider.up(applyDefaults({ name: ENV_NAME }), silentProgress);
    const [a, b] = env.nodes ?? [];
    expect(b).toBe(`${env.nodeName}-b`);
    const api = await kubeApi(env);
    const image = env.sandboxImage ?? SANDBOX_IMAGE_REF;
    const pod = (name: string, node: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: {
        nodeName: node,
        automountServiceAccountToken: false,
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'c', image, imagePullPolicy: 'Never' }],
      },
    });
    await api.apply([pod('on-a', a!), pod('on-b', b!)]);
    const running = (name: string) =>
      poll(
        async () => {
          const p = await api.core.readNamespacedPod({ name, namespace: 'default' });
          return p.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      );
    const containerId = (p: V1Pod | undefined) =>
      p?.status?.containerStatuses?.[0]?.containerID?.replace(/^.*:\/\//, '');
    const [onA, onB] = await Promise.all([running('on-a'), running('on-b')]);
    const ids = { a: containerId(onA), b: containerId(onB) };
    expect(ids.a && ids.b).toBeTruthy();
    const containers = async (socket: string) =>
      (await execa(env!.containerd!.ctr, ['--address', socket, '-n', 'k8s.io', 'containers', 'ls', '-q'])).stdout
        .split('\n')
        .filter(Boolean);
    const held = { a: await containers(layout.containerdSocket), b: await containers(layout.second.containerdSocket) };
    expect({ aHoldsA: held.a.includes(ids.a!), aHoldsB: held.a.includes(ids.b!) }).toEqual({
      aHoldsA: true,
      aHoldsB: false,
    });
    expect({ bHoldsB: held.b.includes(ids.b!), bHoldsA: held.b.includes(ids.a!) }).toEqual({
      bHoldsB: true,
      bHoldsA: false,
    });

    const second = async () => Promise.all(['kubelet-b', 'containerd-b'].map((n) => recordedPid(layout.pids, n)));
    const before = await second();
    env = await provider.restartKubelet(env, { kubelet: { config: { maxPods: 23 } } }, silentProgress);
    // A few of the new kubelet's housekeeping passes (every 2 s), where it would clean up pods it does not know.
    await sleep(6000);
    expect(await second()).toEqual(before);
    const after = await api.core.readNamespacedPod({ name: 'on-b', namespace: 'default' });
    expect({
      running: !!after.status?.containerStatuses?.[0]?.state?.running,
      id: containerId(after),
      restarts: after.status?.containerStatuses?.[0]?.restartCount,
    }).toEqual({ running: true, id: ids.b, restarts: 0 });
    expect(await containers(layout.second.containerdSocket)).toEqual(expect.arrayContaining([ids.b]));
    expect(containerId(await running('on-a'))).toBe(ids.a);
  }, 240_000);

  it('RESTART-WATCH: the component watch a run keeps lets our own kubelet restart pass, and names a kubelet killed under it within seconds', async () => {
    env ??= await provider.up(applyDefaults({ name: ENV_NAME }), silentProgress);
    const stop = new AbortController();
    let death: unknown;
    const watched = provider.watchComponents!(env, stop.signal).then(
      (d) => (death = d),
      () => undefined,
    );
    try {
      env = await provider.restartKubelet(env, { kubelet: { config: { maxPods: 19 } } }, silentProgress);
      await sleep(2500);
      expect(death).toBeUndefined();
      const pid = (await recordedPid(layout.pids, 'kubelet'))!;
      process.kill(pid, 'SIGKILL');
      const t0 = Date.now();
      await Promise.race([watched, sleep(10_000)]);
      expect(death).toEqual({ component: 'kubelet', logFile: join(layout.logs, 'kubelet.log') });
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      stop.abort();
    }
  }, 240_000);
});
