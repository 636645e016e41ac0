// The images kubeadm's static pods run, made from binaries credprov already
// built, under exactly the names `kubeadm config images list` prints: kubeadm
// pulls IfNotPresent and kind skips the preflight pulls, so a pinned image of
// that name is never fetched. Each is one layer holding the binary, with PATH
// set so kubeadm's `command: [kube-apiserver, ...]` resolves. coredns and
// kube-proxy are left out: the cluster config skips both addons (no Services
// are used by credential tests, and their images cannot be built here).
import { readFile } from 'node:fs/promises';
import { buildImage, type BuiltImage } from '../../../../registry/index.ts';

/** kubeadm's image names, by the component each runs. */
export interface KubeadmImages {
  'kube-apiserver': string;
  'kube-controller-manager': string;
  'kube-scheduler': string;
  etcd: string;
  pause: string;
}

const COMPONENTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd', 'pause'] as const;

/** Picks the images credprov provides out of `kubeadm config images list` (one reference per line). */
export function kubeadmImagesFrom(listOutput: string): KubeadmImages {
  const refs = listOutput
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const out: Partial<KubeadmImages> = {};
  for (const c of COMPONENTS) {
    const ref = refs.find((r) => repositoryOf(r).endsWith(`/${c}`));
    if (!ref) throw new Error(`kubeadm config images list names no ${c} image:\n${listOutput}`);
    out[c] = ref;
  }
  return out as KubeadmImages;
}

function repositoryOf(ref: string): string {
  const at = ref.lastIndexOf(':');
  return at > ref.lastIndexOf('/') ? ref.slice(0, at) : ref;
}

/** An image that runs `binary` as `/usr/local/bin/<name>`, named like `ref` (registry.k8s.io/kube-apiserver:v1.37.1). */
export async function binaryImage(
  ref: string,
  name: string,
  binary: string,
  entrypoint?: string[],
): Promise<BuiltImage> {
  const repo = repositoryOf(ref);
  const path = repo.slice(repo.indexOf('/') + 1);
  return buildImage({
    name: path,
    tag: ref.slice(repo.length + 1),
    layers: [
      [
        { type: 'dir', path: 'usr' },
        { type: 'dir', path: 'usr/local' },
        { type: 'dir', path: 'usr/local/bin' },
        { type: 'file', path: `usr/local/bin/${name}`, data: await readFile(binary), mode: 0o755 },
        { type: 'dir', path: 'tmp', mode: 0o1777 },
      ],
    ],
    env: ['PATH=/usr/local/bin:/usr/bin:/bin'],
    ...(entrypoint ? { entrypoint } : {}),
    labels: { 'io.credprov.image': name },
    gzipLevel: 1,
  });
}
