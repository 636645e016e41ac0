// kubeadm of one release, for kind's node image: the same cache entry, proxy
// build and version stamping as the other kube binaries, but only when asked
// for, so the default set (and the default setup's build time) stays as it
// is. A cached entry without kubeadm gets it added, not rebuilt.
import type { Logger } from '../../core/logger.ts';
import type { Progress } from '../../core/progress.ts';
import { resolveKubeBinaries } from './resolve.ts';

export interface KubeadmOptions {
  /** 1.37.1, v1.37 or 1.37.x (newest patch a source can deliver). */
  kubeVersion: string;
  cacheDir?: string;
  progress: Progress;
  log?: Logger;
  signal?: AbortSignal;
}

/**
 * The path of kubeadm, which reports exactly the resolved version for
 * `kubeadm version -o short`. Pass the exact version the node's kubelet
 * resolved to: a minor (1.37) takes the newest patch the proxy serves, which
 * may be newer than the cached kubelet's.
 */
export async function ensureKubeadm(o: KubeadmOptions): Promise<string> {
  const r = await resolveKubeBinaries({
    version: o.kubeVersion,
    names: ['kubeadm'],
    progress: o.progress,
    ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  return r.kubeadm;
}
