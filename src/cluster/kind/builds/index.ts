// The Go builds a kind node image needs beyond the default kube binaries and
// containerd: kubeadm of the release, the etcd its kubeadm runs, and the kind
// CLI with its module source. Each is cached on its own; a warm call takes seconds.
import type { Logger } from '../../../core/logger.ts';
import { type Progress, step } from '../../../core/progress.ts';
import { ensureKubeadm } from '../../binaries/kubeadm.ts';
import { ensureEtcd, etcdOfKubeadm, etcdVersionForKube, type EtcdVersion } from './etcd.ts';
import { ensureKind, type KindCli } from './kind-cli.ts';

export { ensureEtcd, etcdOfKubeadm, etcdVersionForKube, moduleVersion, type EtcdVersion } from './etcd.ts';
export { ensureKind, KIND_VERSION, locateKind, type KindCli } from './kind-cli.ts';
export { ensureKubeadm } from '../../binaries/kubeadm.ts';

export interface KindBuilds {
  kubeadm: string;
  etcd: { etcd: string } & EtcdVersion;
  kind: KindCli;
}

export async function ensureKindBuilds(o: {
  /** An exact release (v1.37.1): the kube binaries are resolved first. */
  kubeVersion: string;
  cacheDir?: string;
  progress: Progress;
  log?: Logger;
  signal?: AbortSignal;
}): Promise<KindBuilds> {
  const common = {
    progress: o.progress,
    ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  };
  const kubeadm = await step(o.progress, `kubeadm ${o.kubeVersion}`, () =>
    ensureKubeadm({ kubeVersion: o.kubeVersion, ...common }),
  );
  // kubeadm's own answer wins: the node pulls exactly that tag. The table predicts it for every patch credprov builds.
  const wanted = await etcdOfKubeadm(kubeadm, o.kubeVersion);
  const predicted = etcdVersionForKube(o.kubeVersion);
  if (predicted.imageTag !== wanted.imageTag)
    o.progress.note(
      `kubeadm ${o.kubeVersion} runs etcd ${wanted.imageTag}, the version table says ${predicted.imageTag}: update etcdImageTag in src/versions/table.ts`,
    );
  const etcd = await step(o.progress, `etcd ${wanted.version} (kubeadm's ${wanted.imageTag})`, () =>
    ensureEtcd({ version: wanted.version, ...common }),
  );
  const kind = await step(o.progress, 'kind CLI', () => ensureKind(common));
  return { kubeadm, etcd: { etcd: etcd.etcd, ...wanted }, kind };
}
