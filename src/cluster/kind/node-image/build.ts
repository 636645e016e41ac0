// Builds credprov/kind-node:<version> offline, the way kind's buildcontext.go
// does (a build container from the base image, binaries and images put in,
// `docker commit`), from a Debian root filesystem and binaries credprov built
// from the Go module proxy. The image carries the hash of its inputs as a
// label: the same inputs find it in seconds, changed ones rebuild it.
import { createHash } from 'node:crypto';
import { cp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { exportImageTar } from '../../../../registry/index.ts';
import { step, type Progress } from '../../../core/progress.ts';
import { must, type Runner } from '../tools.ts';
import { binaryImage, type KubeadmImages } from './control-plane-images.ts';
import { ensureRootfs } from './rootfs.ts';
import { BUILD_INPUT, DEFAULT_HOSTS_TOML, placeholderManifest, setupScript, staticCniConfig } from './setup-script.ts';

export const NODE_IMAGE_REPOSITORY = 'credprov/kind-node';
export const INPUTS_LABEL = 'io.credprov.inputs';

/** Everything the image is made of, as files on this host. */
export interface NodeImageInputs {
  kubeVersion: string;
  /** kubelet, kubeadm, kubectl, kube-apiserver, kube-controller-manager, kube-scheduler, etcd, containerd, ctr, containerd-shim-runc-v2, pause. */
  binaries: Record<string, string>;
  /** kubeadm's image names for this version. */
  images: KubeadmImages;
  /** kind's module source (images/base/files). */
  kindModuleDir: string;
  kindVersion: string;
}

export const REQUIRED_BINARIES = [
  'kubelet',
  'kubeadm',
  'kubectl',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'etcd',
  'containerd',
  'ctr',
  'containerd-shim-runc-v2',
  'pause',
] as const;

export function nodeImageRef(kubeVersion: string): string {
  return `${NODE_IMAGE_REPOSITORY}:${kubeVersion}`;
}

/** The inputs' identity: binaries by path, size and mtime (each cache rewrites a binary it rebuilds), the rest by value. */
export async function inputsHash(i: NodeImageInputs, rootfsKey: string): Promise<string> {
  const h = createHash('sha256');
  h.update(`${i.kubeVersion}\n${i.kindVersion}\n${rootfsKey}\n${JSON.stringify(i.images)}\n`);
  h.update(setupScript({ kubeVersion: i.kubeVersion, pauseImage: i.images.pause }));
  for (const name of REQUIRED_BINARIES) {
    const s = await stat(i.binaries[name]!);
    h.update(`${name} ${i.binaries[name]} ${s.size} ${s.mtimeMs}\n`);
  }
  return h.digest('hex').slice(0, 24);
}

export interface BuildNodeImageOptions {
  inputs: NodeImageInputs;
  /** Runs docker against the kind engine (DOCKER_HOST set). */
  run: Runner;
  progress: Progress;
  /** Where the Debian root filesystem and the build's staging dir live. */
  workDir: string;
  /** Rebuild even when an image with these inputs exists. */
  force?: boolean;
}

export interface BuiltNodeImage {
  ref: string;
  cached: boolean;
  inputs: string;
}

export async function buildNodeImage(o: BuildNodeImageOptions): Promise<BuiltNodeImage> {
  const { inputs: i, run, progress } = o;
  const ref = nodeImageRef(i.kubeVersion);
  const rootfs = await step(progress, 'Debian root filesystem (mmdebstrap; a tarball cached by its packages)', () =>
    ensureRootfs(join(o.workDir, 'rootfs')),
  );
  const hash = await inputsHash(i, rootfs.key);
  const present = await run('docker', [
    'image',
    'inspect',
    '--format',
    `{{index .Config.Labels "${INPUTS_LABEL}"}}`,
    ref,
  ]);
  if (!o.force && present.exitCode === 0 && present.stdout.trim() === hash) return { ref, cached: true, inputs: hash };

  const base = `credprov/kind-base:${rootfs.key}`;
  if ((await run('docker', ['image', 'inspect', '--format', '{{.Id}}', base])).exitCode !== 0)
    await step(progress, `docker import ${basename(rootfs.tarball)} as ${base}`, () =>
      must(
        run,
        'import the root filesystem',
        'docker',
        ['import', '--change', 'ENV container=docker', rootfs.tarball, base],
        {
          timeoutMs: 600_000,
        },
      ),
    );
  const stage = join(o.workDir, `build-${process.pid}`);
  const container = `credprov-kind-build-${process.pid}`;
  try {
    await step(progress, 'stage kind files, binaries and control-plane images', () => stageInputs(i, stage));
    await must(run, 'start the build container', 'docker', [
      'run',
      '-d',
      '--privileged',
      '--name',
      container,
      '--entrypoint',
      'sleep',
      '-v',
      `${stage}:${BUILD_INPUT}:ro`,
      base,
      'infinity',
    ]);
    await step(progress, 'install into the build container, import images into containerd', () =>
      must(run, 'set up the node image', 'docker', ['exec', '-i', container, 'bash'], {
        input: setupScript({ kubeVersion: i.kubeVersion, pauseImage: i.images.pause }),
        timeoutMs: 600_000,
      }),
    );
    const previous =
      present.exitCode === 0
        ? (await run('docker', ['image', 'inspect', '--format', '{{.Id}}', ref])).stdout.trim()
        : '';
    // No STOPSIGNAL: Docker before 23 refuses it as a commit change; kind removes nodes with `docker rm -f`.
    await step(progress, `docker commit ${ref}`, () =>
      must(
        run,
        'commit the node image',
        'docker',
        [
          'commit',
          '--change',
          'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]',
          '--change',
          'CMD []',
          '--change',
          'ENV container=docker',
          '--change',
          `LABEL ${INPUTS_LABEL}=${hash}`,
          container,
          ref,
        ],
        { timeoutMs: 600_000 },
      ),
    );
    if (previous) await run('docker', ['image', 'rm', previous]);
    return { ref, cached: false, inputs: hash };
  } finally {
    await run('docker', ['rm', '-f', '-v', container]);
    await rm(stage, { recursive: true, force: true });
  }
}

async function stageInputs(i: NodeImageInputs, stage: string): Promise<void> {
  await rm(stage, { recursive: true, force: true });
  const files = join(stage, 'files');
  await cp(join(i.kindModuleDir, 'images', 'base', 'files'), files, { recursive: true });
  const write = async (path: string, text: string) => {
    await mkdir(join(files, path, '..'), { recursive: true });
    await writeFile(join(files, path), text);
  };
  await write('etc/cni/net.d/10-credprov.conflist', staticCniConfig());
  await write('etc/containerd/certs.d/_default/hosts.toml', DEFAULT_HOSTS_TOML);
  await write(
    'kind/manifests/default-cni.yaml',
    placeholderManifest('cni', 'credprov node image: a static bridge CNI config on each node instead of kindnetd'),
  );
  await write(
    'kind/manifests/default-storage.yaml',
    placeholderManifest('storage', 'credprov node image: no default StorageClass (no local-path-provisioner)'),
  );
  await mkdir(join(stage, 'bin'), { recursive: true });
  for (const name of REQUIRED_BINARIES) await cp(i.binaries[name]!, join(stage, 'bin', name));
  await mkdir(join(stage, 'images'), { recursive: true });
  const images: Array<[keyof KubeadmImages, string, string[]?]> = [
    ['kube-apiserver', 'kube-apiserver'],
    ['kube-controller-manager', 'kube-controller-manager'],
    ['kube-scheduler', 'kube-scheduler'],
    ['etcd', 'etcd'],
    ['pause', 'pause', ['/usr/local/bin/pause']],
  ];
  for (const [component, binary, entrypoint] of images) {
    const ref = i.images[component];
    const image = await binaryImage(ref, binary, i.binaries[binary]!, entrypoint);
    await exportImageTar(image, join(stage, 'images', `${component}.tar`), ref);
  }
}
