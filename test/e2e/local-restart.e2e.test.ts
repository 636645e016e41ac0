// restartKubelet: only the kubelet restarts (the control plane keeps its
// pids), with a new config, and with another kubelet binary (version skew:
// an older minor's kubelet against the default API server).
import { afterAll, describe, expect } from '@jest/globals';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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
