import { afterAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitEntry, describeBinaries, stagingDir } from './cache.ts';
import {
  CONTAINERD_BINARIES,
  containerdCacheRoot,
  containerdLineFor,
  ensureContainerd,
  findCachedContainerd,
} from './containerd.ts';
import { fakeGo } from './testdata/fake-go.ts';

const tmp = mkdtempSync(join(tmpdir(), 'credprov-containerd-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cacheBuild(cacheDir: string, version: string): Promise<void> {
  const root = containerdCacheRoot(cacheDir);
  const dir = await stagingDir(root, version);
  for (const n of CONTAINERD_BINARIES) {
    await writeFile(join(dir, n), `#!/bin/sh\necho "containerd github.com/containerd/containerd/v2 ${version} "\n`);
    await chmod(join(dir, n), 0o755);
  }
  await commitEntry(dir, join(root, version), {
    version,
    source: 'build',
    origin: 'test',
    binaries: await describeBinaries(dir, CONTAINERD_BINARIES),
    createdAt: new Date().toISOString(),
    durationMs: 1,
  });
}

describe('containerd for a kubelet', () => {
  test('picks the newest containerd line the version table lists for the kube version', () => {
    expect(containerdLineFor('v1.37.1')).toEqual({ major: 2, minor: 3 });
    expect(containerdLineFor('1.35')).toEqual({ major: 2, minor: 2 });
    expect(containerdLineFor('1.34.10')).toEqual({ major: 2, minor: 1 });
  });

  test('a cached build of the wanted line is used without asking the proxy', async () => {
    const cacheDir = join(tmp, 'a');
    await cacheBuild(cacheDir, 'v2.3.7');
    const go = fakeGo({ known: [] });
    const r = await ensureContainerd({ kubeVersion: 'v1.37.1', cacheDir, go });
    expect(r).toMatchObject({
      version: 'v2.3.7',
      fromCache: true,
      shim: join(containerdCacheRoot(cacheDir), 'v2.3.7', 'containerd-shim-runc-v2'),
    });
    expect(go.calls).toEqual([]);
  });

  test('findCachedContainerd returns only a build the kubelet supports', async () => {
    const cacheDir = join(tmp, 'b');
    await mkdir(cacheDir, { recursive: true });
    await cacheBuild(cacheDir, 'v2.1.9');
    expect(await findCachedContainerd('v1.37.1', cacheDir)).toBeUndefined();
    expect((await findCachedContainerd('v1.34.10', cacheDir))?.version).toBe('v2.1.9');
  });

  test('with nothing cached and an empty proxy it says what is missing', async () => {
    await expect(
      ensureContainerd({ kubeVersion: 'v1.37.1', cacheDir: join(tmp, 'c'), go: fakeGo({ known: [] }) }),
    ).rejects.toThrow('no containerd 2.3 release is known to the Go module proxy and none is cached');
  });
});

describe('containerd wrapper module', () => {
  test('carries the go line and the exclude and replace directives, single and in blocks', async () => {
    const { containerdWrapperGoMod } = await import('./containerd.ts');
    const mod = containerdWrapperGoMod(
      [
        'module github.com/containerd/containerd/v2',
        '',
        'go 1.23.0',
        '',
        'require (',
        '\tgithub.com/a/b v1.0.0',
        ')',
        '',
        'exclude (',
        '\tgithub.com/x/y v0.1.0',
        ')',
        'replace github.com/p/q => github.com/p/q v1.2.3',
        '',
      ].join('\n'),
      'v2.1.9',
    );
    expect(mod).toBe(
      [
        'module credprov.local/containerdbuild',
        '',
        'go 1.23.0',
        '',
        'require github.com/containerd/containerd/v2 v2.1.9',
        '',
        'exclude (',
        '\tgithub.com/x/y v0.1.0',
        ')',
        'replace github.com/p/q => github.com/p/q v1.2.3',
        '',
      ].join('\n'),
    );
  });
});
