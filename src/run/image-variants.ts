// Variants of one test image and archives of many: a variant differs only in
// its command (the marker), so in its config and manifest: it has a CRI image
// ID of its own (KEP-2535 records are keyed by it, k/k #138175) while its
// layer is built, gzipped and stored once. An archive of several images is
// what one `ctr images import` preloads onto a node.
import { blob, descriptor, MEDIA, tar, type BuiltImage, type TarEntry } from '../../registry/index.ts';

/** `base` with the command `busybox echo <marker>`, named `name:tag`. */
export function imageVariant(base: BuiltImage, marker: string, name: string, tag: string): BuiltImage {
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
