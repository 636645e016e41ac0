import { describe, expect, test } from '@jest/globals';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Environment } from '../cluster/provider.ts';
import { useTempDir } from '../testing/tmp.ts';
import { imageNames, importImages, removeImage, removeImagesNamed } from './node-images.ts';

const tmp = useTempDir('credprov-node-images-');

const LS = [
  'REF                                   TYPE                                    DIGEST       SIZE    PLATFORMS   LABELS',
  'reg.test/app:v1                       application/vnd.oci.image.manifest.v1   sha256:aaa   1.0 KiB linux/amd64 -',
  'reg.test/app@sha256:aaa               application/vnd.oci.image.manifest.v1   sha256:aaa   1.0 KiB linux/amd64 -',
  'sha256:1111                           application/vnd.oci.image.manifest.v1   sha256:aaa   1.0 KiB linux/amd64 -',
  'reg.test/other:v1                     application/vnd.oci.image.manifest.v1   sha256:bbb   1.0 KiB linux/amd64 -',
].join('\n');

/** An environment whose `ctr` is a script: it logs its argv and answers `images ls` with LS; `fail` makes it exit 1. */
async function fakeCtr(o: { quiet?: string[]; fail?: boolean } = {}) {
  const dir = await mkdtemp(join(tmp(), 'ctr-'));
  const log = join(dir, 'argv.log');
  const ctr = join(dir, 'ctr');
  await writeFile(join(dir, 'ls.txt'), `${LS}\n`);
  await writeFile(join(dir, 'q.txt'), `${(o.quiet ?? []).join('\n')}\n`);
  await writeFile(
    ctr,
    [
      '#!/bin/sh',
      `echo "$*" >> ${log}`,
      o.fail ? 'echo "ctr: boom" >&2; exit 1' : '',
      'case "$*" in',
      `  *"images ls -q"*) cat ${join(dir, 'q.txt')} ;;`,
      `  *"images ls"*) cat ${join(dir, 'ls.txt')} ;;`,
      'esac',
    ].join('\n'),
  );
  await chmod(ctr, 0o755);
  const env = { name: 'e', containerd: { ctr, address: '/run/c.sock' } } as unknown as Environment;
  const calls = async () =>
    (await readFile(log, 'utf8').catch(() => ''))
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace('--address /run/c.sock --namespace k8s.io ', ''));
  return { env, calls, dir };
}

describe('node images through ctr, in the CRI namespace', () => {
  test("an image's names are every ref whose target is its manifest; removing it removes them all at once", async () => {
    const { env, calls } = await fakeCtr();
    expect(await imageNames(env, 'sha256:aaa')).toEqual(['reg.test/app:v1', 'reg.test/app@sha256:aaa', 'sha256:1111']);
    expect(await removeImage(env, 'sha256:aaa')).toHaveLength(3);
    expect((await calls()).at(-1)).toBe('images rm reg.test/app:v1 reg.test/app@sha256:aaa sha256:1111');
  });

  test("a run's own images removed by name, a hundred per ctr call", async () => {
    const quiet = [...Array.from({ length: 150 }, (_, i) => `reg.test/run-x/img${i}:v1`), 'reg.test/keep:v1'];
    const { env, calls } = await fakeCtr({ quiet });
    expect(await removeImagesNamed(env, 'run-x')).toBe(150);
    const rms = (await calls()).filter((c) => c.startsWith('images rm'));
    expect(rms.map((c) => c.split(' ').length - 2)).toEqual([100, 50]);
    expect(rms.join(' ')).not.toContain('keep');
  });

  test('an import goes through a file that is removed afterwards; a failing ctr throws, naming the command', async () => {
    const ok = await fakeCtr();
    const file = join(ok.dir, 'images.tar');
    await importImages(ok.env, Buffer.from('archive'), file);
    expect(await ok.calls()).toEqual([`images import ${file}`]);
    await expect(readFile(file)).rejects.toThrow();
    const bad = await fakeCtr({ fail: true });
    await expect(imageNames(bad.env, 'sha256:aaa')).rejects.toThrow(/ctr images ls failed/);
  });

  test('an environment without a reachable containerd is refused', async () => {
    await expect(imageNames({ name: 'kind-x' } as Environment, 'sha256:aaa')).rejects.toThrow(
      /environment kind-x has no containerd the harness can reach/,
    );
  });
});
