import { afterAll, describe, expect, test } from '@jest/globals';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheDir as defaultCacheDir } from '../../../core/paths.ts';
import { silentProgress } from '../../../core/progress.ts';
import { testIf } from '../../../testing/prerequisites.ts';
import { readManifest } from '../../binaries/cache.ts';
import { ensureKind, KIND_VERSION, kindReportedVersion, locateKind } from './kind-cli.ts';
import { toolGo } from './testdata/tool-go.ts';

const tmp = mkdtempSync(join(tmpdir(), 'credprov-kind-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('ensureKind', () => {
  test('installs kind once from the module proxy into the cache, with the module source dir', async () => {
    const cacheDir = join(tmp, 'cache-a');
    const go = toolGo({ tmp });
    const r = await ensureKind({ cacheDir, progress: silentProgress, go });
    expect(r).toEqual({
      kind: join(cacheDir, 'kind', 'v0.33.0', 'kind'),
      version: 'v0.33.0',
      moduleDir: join(tmp, 'gomodcache', 'sigs.k8s.io/kind@v0.33.0'),
    });
    expect(go.calls).toEqual([
      'download sigs.k8s.io/kind@v0.33.0',
      'run install -trimpath -ldflags -s -w sigs.k8s.io/kind@v0.33.0',
    ]);
    expect(readdirSync(join(cacheDir, 'kind', KIND_VERSION)).sort()).toEqual(['build.log', 'kind', 'manifest.json']);
    expect(await readManifest(join(cacheDir, 'kind', KIND_VERSION))).toMatchObject({
      version: 'v0.33.0',
      source: 'build',
      origin: 'sigs.k8s.io/kind@v0.33.0 h1:fake=',
    });
    go.calls.length = 0;
    expect(await ensureKind({ cacheDir, progress: silentProgress, go })).toEqual(r);
    // The source dir is asked for again (a local no-op when the module cache holds it); nothing is built.
    expect(go.calls).toEqual(['download sigs.k8s.io/kind@v0.33.0']);
  });

  test('a kind that reports another version is refused and nothing is cached', async () => {
    const cacheDir = join(tmp, 'cache-b');
    await expect(
      ensureKind({ cacheDir, progress: silentProgress, go: toolGo({ tmp, reports: 'v0.32.0' }) }),
    ).rejects.toThrow('kind built for v0.33.0 reports v0.32.0');
    expect(readdirSync(join(cacheDir, 'kind'))).toEqual([]);
  });
});

describe('locateKind', () => {
  const pathDir = join(tmp, 'bin');
  const cacheDir = join(tmp, 'cache-locate');

  test('finds nothing when kind is neither on PATH nor cached', async () => {
    expect(await locateKind({ PATH: join(tmp, 'empty') }, cacheDir)).toBeUndefined();
  });

  test('uses the cached build when kind is not on PATH, and the one on PATH when there is one', async () => {
    await ensureKind({ cacheDir, progress: silentProgress, go: toolGo({ tmp }) });
    expect(await locateKind({ PATH: join(tmp, 'empty') }, cacheDir)).toEqual({
      path: join(cacheDir, 'kind', KIND_VERSION, 'kind'),
      from: 'cache',
    });
    mkdirSync(pathDir, { recursive: true });
    writeFileSync(join(pathDir, 'kind'), '#!/bin/sh\necho kind v0.31.0\n');
    chmodSync(join(pathDir, 'kind'), 0o755);
    expect(await locateKind({ PATH: pathDir }, cacheDir)).toEqual({ path: join(pathDir, 'kind'), from: 'PATH' });
  });
});

// The real build (credprov binaries ensure --for kind): skipped where it has not been made, CI included,
// since the test command does not build it.
const realDir = join(defaultCacheDir(), 'kind', KIND_VERSION);
const built = existsSync(join(realDir, 'manifest.json'));
const maybe = testIf(
  built
    ? { ok: true }
    : { ok: false, reason: `kind ${KIND_VERSION} is not cached (credprov binaries ensure --for kind)` },
  { optional: true },
);

describe(`cached kind ${KIND_VERSION}${built ? '' : ' (not built here)'}`, () => {
  maybe('reports its version; the module source has the base image files the node image copies', async () => {
    expect(await kindReportedVersion(join(realDir, 'kind'))).toBe(KIND_VERSION);
    const r = await ensureKind({ progress: silentProgress });
    expect(r.kind).toBe(join(realDir, 'kind'));
    expect(existsSync(join(r.moduleDir, 'images', 'base', 'files', 'usr', 'local', 'bin', 'entrypoint'))).toBe(true);
  });
});
