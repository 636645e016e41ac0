import { describe, test, expect } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { execa } from 'execa';
import { buildImage, sha256 } from './build.ts';
import { imageArchive } from './export.ts';
import { listTar, tar } from './tar.ts';
import { busyboxImage, pauseBinary } from './test-images.ts';

describe('tar', () => {
  test('writes files, directories and symlinks that GNU tar reads back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-tar-'));
    try {
      const long = `${'d'.repeat(90)}/${'e'.repeat(60)}/file.txt`;
      const buf = tar([
        { type: 'dir', path: 'bin' },
        { type: 'file', path: 'bin/hello', data: 'hi\n', mode: 0o755 },
        { type: 'symlink', path: 'bin/sh', target: 'hello' },
        { type: 'file', path: long, data: 'x' },
      ]);
      await writeFile(join(dir, 'a.tar'), buf);
      const { stdout } = await execa('tar', ['-tvf', join(dir, 'a.tar')]);
      expect(stdout).toMatch(/^drwxr-xr-x 0\/0 +0 .* bin\/$/m);
      expect(stdout).toMatch(/^-rwxr-xr-x 0\/0 +3 .* bin\/hello$/m);
      expect(stdout).toMatch(/bin\/sh -> hello$/m);
      expect(stdout).toContain(long);
      expect(listTar(buf).map((e) => e.path)).toEqual(['bin/', 'bin/hello', 'bin/sh', long]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('is deterministic, so the same content gives the same layer digest', () => {
    const entries = [{ type: 'file' as const, path: 'a', data: 'same' }];
    expect(sha256(tar(entries))).toBe(sha256(tar(entries)));
  });
});

describe('buildImage', () => {
  const image = buildImage({
    name: 'credprov/t',
    tag: 'v1',
    layers: [[{ type: 'file', path: 'f', data: 'x' }]],
    cmd: ['/f'],
  });

  test('links manifest, config and layers by digest and size', () => {
    const manifest = JSON.parse(image.manifest.data.toString());
    expect(manifest.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
    expect(manifest.config).toEqual({
      mediaType: image.config.mediaType,
      digest: image.config.digest,
      size: image.config.size,
    });
    expect(manifest.layers[0].digest).toBe(image.layers[0]!.digest);
    expect(image.manifest.digest).toBe(sha256(image.manifest.data));
  });

  test('records the uncompressed layer digest as the diff_id', () => {
    const config = JSON.parse(image.config.data.toString());
    expect(config.rootfs.diff_ids).toEqual([sha256(gunzipSync(image.layers[0]!.data))]);
    expect(config.config.Cmd).toEqual(['/f']);
    expect(config.os).toBe('linux');
  });

  test('refuses a repository name a registry would reject', () => {
    expect(() => buildImage({ name: 'Credprov/Upper', layers: [] })).toThrow(/not a valid repository path/);
  });
});

describe('imageArchive', () => {
  test('holds an OCI layout and a docker manifest.json naming the same blobs', () => {
    const image = buildImage({ name: 'credprov/t', layers: [[{ type: 'file', path: 'f', data: 'x' }]] });
    const entries = listTar(imageArchive(image, 'registry.k8s.io/pause:3.10'));
    const paths = entries.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'oci-layout',
        'index.json',
        'manifest.json',
        `blobs/sha256/${image.manifest.digest.slice(7)}`,
        `blobs/sha256/${image.layers[0]!.digest.slice(7)}`,
      ]),
    );
  });
});

describe('test images', () => {
  test('the busybox image runs busybox echo with the marker', async () => {
    const image = await busyboxImage({ marker: 'hello-marker' });
    const config = JSON.parse(image.config.data.toString());
    expect(config.config.Cmd).toEqual(['/bin/busybox', 'echo', 'hello-marker']);
    const entries = listTar(gunzipSync(image.layers[0]!.data));
    expect(entries.find((e) => e.path === 'bin/sh')).toMatchObject({ type: '2', linkTarget: 'busybox' });
  });

  test('the pause binary is static and exits 0 on SIGTERM', async () => {
    const bin = await pauseBinary();
    const { stdout: file } = await execa('file', [bin], { reject: false });
    if (file) expect(file).toMatch(/statically linked/);
    const child = execa(bin, [], { reject: false });
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    const r = await child;
    expect(r.exitCode).toBe(0);
  }, 120_000);
});
