// One image per cell: the busybox test image with the cell's marker in its
// command. Only the config (and so the manifest) differs, so every cell has
// its own CRI image ID (records are keyed by it, k/k #138175) while the layer
// is built, gzipped and stored once.
import { blob, type BuiltImage, descriptor, MEDIA, tar, type TarEntry } from '../../registry/index.ts';

export function variant(base: BuiltImage, marker: string, name: string, tag: string): BuiltImage {
  const cfg = JSON.parse(base.config.data.toString('utf8')) as { config: { Cmd?: string[] } };
  cfg.config.Cmd = ['/bin/busybox', 'echo', marker];
  const config = blob(MEDIA.config, Buffer.from(JSON.stringify(cfg)));
  const manifest = blob(
    MEDIA.manifest,
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MEDIA.manifest,
        config: descriptor(config),
        layers: base.layers.map((l) => descriptor(l)),
      }),
    ),
  );
  return { name, tag, manifest, config, layers: base.layers };
}

/** An OCI image layout holding several images, each under its full name: one `ctr images import` preloads them all. */
export function multiImageArchive(images: Array<{ image: BuiltImage; ref: string }>): Buffer {
  const blobPath = (digest: string) => `blobs/sha256/${digest.slice('sha256:'.length)}`;
  const index = {
    schemaVersion: 2,
    mediaType: MEDIA.index,
    manifests: images.map(({ image, ref }) =>
      descriptor(image.manifest, {
        'io.containerd.image.name': ref,
        'org.opencontainers.image.ref.name': ref.slice(ref.lastIndexOf(':') + 1),
      }),
    ),
  };
  const seen = new Set<string>();
  const blobs = images
    .flatMap(({ image }) => [image.manifest, image.config, ...image.layers])
    .filter((b) => !seen.has(b.digest) && (seen.add(b.digest), true));
  const entries: TarEntry[] = [
    { type: 'file', path: 'oci-layout', data: JSON.stringify({ imageLayoutVersion: '1.0.0' }) },
    { type: 'file', path: 'index.json', data: JSON.stringify(index) },
    { type: 'dir', path: 'blobs' },
    { type: 'dir', path: 'blobs/sha256' },
    ...blobs.map((b): TarEntry => ({ type: 'file', path: blobPath(b.digest), data: b.data })),
  ];
  return tar(entries);
}
