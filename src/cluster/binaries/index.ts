// Public face of the binaries module: exact-version kube binaries and a
// containerd the chosen kubelet supports.
export { resolveKubeBinaries, type KubeBinaries, type ResolveOptions } from './resolve.ts';
export { DEFAULT_KUBE_VERSION } from './versions.ts';
export { KUBE_BINARIES, kubeCacheRoot, listEntries, type KubeManifest, type KubeSource } from './cache.ts';
export {
  ensureContainerd,
  containerdLineFor,
  containerdSupports,
  findCachedContainerd,
  type ContainerdBinaries,
  type ContainerdOptions,
} from './containerd.ts';
export { systemGo, type GoTool } from './go.ts';
