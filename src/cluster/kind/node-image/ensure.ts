// credprov/kind-node:<version>, present and current: gathers every input
// (kube binaries with kubeadm, etcd, containerd, pause, kind's module files),
// asks the release's own kubeadm which image names it will run, then builds
// the image unless one with the same inputs is there already.
import { join } from 'node:path';
import { execa } from 'execa';
import { pauseBinary } from '../../../../registry/index.ts';
import { cacheDir as defaultCacheDir } from '../../../core/paths.ts';
import type { Logger } from '../../../core/logger.ts';
import { step, type Progress } from '../../../core/progress.ts';
import { resolveKubeBinaries } from '../../binaries/resolve.ts';
import { ensureContainerd } from '../../binaries/containerd.ts';
import { ensureKindBuilds } from '../builds/index.ts';
import type { Runner } from '../tools.ts';
import { buildNodeImage, type BuiltNodeImage } from './build.ts';
import { kubeadmImagesFrom } from './control-plane-images.ts';

export interface EnsureNodeImageOptions {
  kubeVersion: string;
  /** docker against the kind engine. */
  run: Runner;
  progress: Progress;
  cacheDir?: string;
  log?: Logger;
  force?: boolean;
  signal?: AbortSignal;
}

export async function ensureNodeImage(o: EnsureNodeImageOptions): Promise<BuiltNodeImage> {
  const cacheDir = o.cacheDir ?? defaultCacheDir();
  const common = {
    cacheDir,
    progress: o.progress,
    ...(o.log ? { log: o.log } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  };
  const kube = await resolveKubeBinaries({ version: o.kubeVersion, ...common });
  const builds = await ensureKindBuilds({ kubeVersion: kube.version, ...common });
  const containerd = await ensureContainerd({ kubeVersion: kube.version, ...common });
  const pause = await pauseBinary(join(cacheDir, 'pause'));
  const list = await step(o.progress, `kubeadm config images list --kubernetes-version ${kube.version}`, async () =>
    String((await execa(builds.kubeadm, ['config', 'images', 'list', '--kubernetes-version', kube.version])).stdout),
  );
  return buildNodeImage({
    inputs: {
      kubeVersion: kube.version,
      binaries: {
        kubelet: kube.kubelet,
        kubeadm: builds.kubeadm,
        kubectl: kube.kubectl,
        'kube-apiserver': kube.kubeApiserver,
        'kube-controller-manager': kube.kubeControllerManager,
        'kube-scheduler': kube.kubeScheduler,
        etcd: builds.etcd.etcd,
        containerd: containerd.containerd,
        ctr: containerd.ctr,
        'containerd-shim-runc-v2': containerd.shim,
        pause,
      },
      images: kubeadmImagesFrom(list),
      kindModuleDir: builds.kind.moduleDir,
      kindVersion: builds.kind.version,
    },
    run: o.run,
    progress: o.progress,
    workDir: join(cacheDir, 'kind'),
    ...(o.force ? { force: true } : {}),
  });
}
