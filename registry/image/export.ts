// Writes an image as a tarball that both `ctr images import` and
// `docker load` read: an OCI image layout (oci-layout, index.json, blobs/) plus
// a docker-archive manifest.json pointing at the same blobs — the shape
// `docker save` produces since Docker 25.
import { writeFile } from 'node:fs/promises';
import { descriptor, MEDIA, type BuiltImage } from './build.ts';
import { tar, type TarEntry } from './tar.ts';

/** `ref` is the full name containerd records, e.g. `registry.k8s.io/pause:3.10` or `localhost/credprov/pause:1`. */
export function imageArchive(image: BuiltImage, ref: string): Buffer {
  const blobPath = (digest: string) => `blobs/sha256/${digest.slice('sha256:'.length)}`;
  const blobs = [image.manifest, image.config, ...image.layers];
  const index = {
    schemaVersion: 2,
    mediaType: MEDIA.index,
    manifests: [
      descriptor(image.manifest, {
        'io.containerd.image.name': ref,
        'org.opencontainers.image.ref.name': ref.slice(ref.lastIndexOf(':') + 1),
      }),
    ],
  };
  const dockerManifest = [
    { Config: blobPath(image.config.digest), RepoTags: [ref], Layers: image.layers.map((l) => blobPath(l.digest)) },
  ];
  const entries: TarEntry[] = [
    { type: 'file', path: 'oci-layout', data: JSON.stringify({ imageLayoutVersion: '1.0.0' }) },
    { type: 'file', path: 'index.json', data: JSON.stringify(index) },
    { type: 'file', path: 'manifest.json', data: JSON.stringify(dockerManifest) },
    { type: 'dir', path: 'blobs' },
    { type: 'dir', path: 'blobs/sha256' },
    ...dedupe(blobs).map((b): TarEntry => ({ type: 'file', path: blobPath(b.digest), data: b.data })),
  ];
  return tar(entries);
}

export async function exportImageTar(
  image: BuiltImage,
  path: string,
  ref = `localhost/${image.name}:${image.tag}`,
): Promise<void> {
  await writeFile(path, imageArchive(image, ref));
}

function dedupe<T extends { digest: string }>(xs: T[]): T[] {
  const seen = new Set<string>();
  return xs.filter((x) => !seen.has(x.digest) && (seen.add(x.digest), true));
}
