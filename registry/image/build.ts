// Builds OCI images in memory from tar entries: gzip layers, an image config
// and an OCI image manifest. No Docker, no daemon; deterministic digests.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { tar, type TarEntry } from './tar.ts';

export const MEDIA = {
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  index: 'application/vnd.oci.image.index.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

export interface Blob {
  mediaType: string;
  digest: string;
  size: number;
  data: Buffer;
}

export interface BuiltImage {
  /** Repository path without host: `credprov/busybox`. */
  name: string;
  tag: string;
  manifest: Blob;
  config: Blob;
  layers: Blob[];
}

export interface ImageSpec {
  name: string;
  tag?: string;
  /** Each inner list becomes one layer. */
  layers: TarEntry[][];
  entrypoint?: string[];
  cmd?: string[];
  env?: string[];
  workingDir?: string;
  labels?: Record<string, string>;
  architecture?: string;
  os?: string;
  /** zlib level of the layers (default 6); large binaries build much faster at 1. */
  gzipLevel?: number;
}

export function sha256(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

export function blob(mediaType: string, data: Buffer): Blob {
  return { mediaType, digest: sha256(data), size: data.length, data };
}

/** The descriptor of a blob as it appears in manifests and indexes. */
export function descriptor(b: Blob, annotations?: Record<string, string>): Record<string, unknown> {
  return { mediaType: b.mediaType, digest: b.digest, size: b.size, ...(annotations ? { annotations } : {}) };
}

const REPO_RE = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG_RE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

export function buildImage(spec: ImageSpec): BuiltImage {
  if (!REPO_RE.test(spec.name))
    throw new Error(
      `image name '${spec.name}' is not a valid repository path (lowercase, [a-z0-9._-] components separated by /)`,
    );
  const tag = spec.tag ?? 'latest';
  if (!TAG_RE.test(tag)) throw new Error(`image tag '${tag}' is not valid`);
  const raw = spec.layers.map((entries) => tar(entries));
  // mtime 0 in the gzip header keeps the digest stable across builds.
  const layers = raw.map((t) => blob(MEDIA.layer, gzipSync(t, { level: spec.gzipLevel ?? 6 })));
  const config = blob(
    MEDIA.config,
    Buffer.from(
      JSON.stringify({
        architecture: spec.architecture ?? goArch(process.arch),
        os: spec.os ?? 'linux',
        config: {
          ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
          ...(spec.cmd ? { Cmd: spec.cmd } : {}),
          Env: spec.env ?? ['PATH=/bin'],
          ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
          ...(spec.labels ? { Labels: spec.labels } : {}),
        },
        rootfs: { type: 'layers', diff_ids: raw.map((t) => sha256(t)) },
        history: raw.map(() => ({ created_by: 'credprov image builder' })),
      }),
    ),
  );
  const manifest = blob(
    MEDIA.manifest,
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MEDIA.manifest,
        config: descriptor(config),
        layers: layers.map((l) => descriptor(l)),
      }),
    ),
  );
  return { name: spec.name, tag, manifest, config, layers };
}

/** Same content under another name or tag (digests unchanged). */
export function retag(image: BuiltImage, name: string, tag = image.tag): BuiltImage {
  return { ...image, name, tag };
}

export function goArch(nodeArch: string): string {
  return (
    (
      { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x' } as Record<
        string,
        string
      >
    )[nodeArch] ?? nodeArch
  );
}
