import { describe, test, expect } from '@jest/globals';
import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { useTempDir } from '../src/testing/tmp.ts';
import { IMAGE_BINARY, libraryDeps, registryImageInputs, writeBuildContext } from './container-image.ts';

// Any dynamically linked binary stands in for docker-registry: the image is the binary plus what ldd names.
const BINARY = '/bin/true';

describe('the registry image inputs', () => {
  const dir = useTempDir('credprov-image-test-');

  test('are the binary at /usr/bin/docker-registry and its libraries, on scratch: nothing to pull', async () => {
    const inputs = await registryImageInputs(BINARY);
    expect(inputs.dockerfile.split('\n')[0]).toBe('FROM scratch');
    expect(inputs.dockerfile).toContain(`ENTRYPOINT ["${IMAGE_BINARY}"]`);
    expect(inputs.files[0]).toEqual({ from: BINARY, to: IMAGE_BINARY });
    expect(inputs.files.slice(1).map((f) => f.to)).toEqual(await libraryDeps(BINARY));
    expect(inputs.files.some((f) => /\/libc\.so\.6$/.test(f.to))).toBe(true);
    expect(inputs.ref).toMatch(/^credprov\/registry:[0-9a-f]{12}$/);
  });

  test('are tagged by content: the same binary gives the same tag, a changed one another', async () => {
    const copy = join(dir(), 'registry-copy');
    await copyFile(BINARY, copy);
    expect((await registryImageInputs(copy)).ref).toBe((await registryImageInputs(BINARY)).ref);
    await copyFile('/bin/false', copy);
    expect((await registryImageInputs(copy)).ref).not.toBe((await registryImageInputs(BINARY)).ref);
  });

  test('become a build context: the Dockerfile and rootfs/ with every file, executable, and /tmp', async () => {
    const inputs = await registryImageInputs(BINARY);
    const ctx = join(dir(), 'ctx');
    await mkdir(ctx);
    await writeBuildContext(inputs, ctx);
    expect(await readFile(join(ctx, 'Dockerfile'), 'utf8')).toBe(inputs.dockerfile);
    for (const f of inputs.files) {
      const s = await stat(join(ctx, 'rootfs', f.to));
      expect(s.isFile()).toBe(true);
      expect(s.mode & 0o777).toBe(0o755);
      expect(s.size).toBe((await stat(f.from)).size);
    }
    expect((await stat(join(ctx, 'rootfs', 'tmp'))).mode & 0o7777).toBe(0o1777);
  });

  test('a binary ldd cannot read is named in the error', async () => {
    await expect(registryImageInputs('/nonexistent/registry')).rejects.toThrow(/^ldd \/nonexistent\/registry failed: /);
  });
});
