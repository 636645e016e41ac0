import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  commitEntry,
  KUBE_BINARIES,
  describeBinaries,
  listEntries,
  removeStaleStaging,
  stagingDir,
  usableEntry,
  verifyEntry,
  withLock,
  type KubeManifest,
} from './cache.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'credprov-cache-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function stage(names: string[], version = 'v1.37.1'): Promise<{ dir: string; manifest: KubeManifest }> {
  const dir = await stagingDir(root, version);
  for (const n of names) {
    await writeFile(join(dir, n), `#!/bin/sh\necho ${n}\n`);
    await chmod(join(dir, n), 0o755);
  }
  const manifest: KubeManifest = {
    version,
    source: 'build',
    origin: 'test',
    binaries: await describeBinaries(dir, names),
    createdAt: new Date().toISOString(),
    durationMs: 1,
  };
  return { dir, manifest };
}

describe('per-version cache', () => {
  test('an entry appears whole, by one rename, with its manifest', async () => {
    const { dir, manifest } = await stage([...KUBE_BINARIES]);
    const final = join(root, 'v1.37.1');
    expect(await usableEntry(final)).toBeUndefined();
    await commitEntry(dir, final, manifest);
    expect((await usableEntry(final))?.version).toBe('v1.37.1');
    expect((await readdir(root)).filter((n) => n.startsWith('.staging'))).toEqual([]);
  });

  test('an entry with a binary of the wrong size is not usable, and verify names the changed binary', async () => {
    const { dir, manifest } = await stage([...KUBE_BINARIES]);
    const final = join(root, 'v1.37.1');
    await commitEntry(dir, final, manifest);
    await writeFile(join(final, 'kubectl'), 'truncated');
    expect(await usableEntry(final)).toBeUndefined();
    expect(await verifyEntry(final, manifest)).toEqual(['kubectl']);
  });

  test('losing a race to another process keeps the winner and discards our staging dir', async () => {
    const first = await stage([...KUBE_BINARIES]);
    const second = await stage([...KUBE_BINARIES]);
    const final = join(root, 'v1.37.1');
    await commitEntry(first.dir, final, { ...first.manifest, origin: 'winner' });
    await commitEntry(second.dir, final, { ...second.manifest, origin: 'loser' });
    expect((await usableEntry(final))?.origin).toBe('winner');
    expect((await readdir(root)).sort()).toEqual(['v1.37.1']);
  });

  test('a kubelet-only (skew) entry serves the kubelet, and a later full build replaces it whole', async () => {
    const skew = await stage(['kubelet']);
    const final = join(root, 'v1.37.1');
    await commitEntry(skew.dir, final, { ...skew.manifest, origin: 'skew' });
    expect((await usableEntry(final, ['kubelet']))?.origin).toBe('skew');
    expect(await usableEntry(final)).toBeUndefined();
    const full = await stage([...KUBE_BINARIES]);
    await commitEntry(full.dir, final, { ...full.manifest, origin: 'full' });
    expect((await usableEntry(final))?.origin).toBe('full');
    expect((await readdir(root)).sort()).toEqual(['v1.37.1']);
  });

  test('listEntries lists releases and pre-releases, and nothing else in the root', async () => {
    for (const v of ['v1.37.1', 'v1.38.0-alpha.0']) {
      const { dir, manifest } = await stage([...KUBE_BINARIES], v);
      await commitEntry(dir, join(root, v), manifest);
    }
    await writeFile(join(root, 'unbuildable.json'), '{}');
    await writeFile(join(root, 'v1.38.0-alpha.0.lock'), '');
    expect((await listEntries(root)).map((m) => m.version).sort()).toEqual(['v1.37.1', 'v1.38.0-alpha.0']);
  });

  test('staging dirs of dead processes are removed, ours are kept', async () => {
    const mine = await stagingDir(root, 'v1.37.1');
    await mkdir(join(root, '.staging-v1.37.1-999999999-abc'));
    await removeStaleStaging(root);
    expect(await readdir(root)).toEqual([mine.split('/').pop()]);
  });
});

describe('withLock', () => {
  test('runs callers one after the other', async () => {
    const lock = join(root, 'v1.37.1.lock');
    const order: string[] = [];
    const slow = withLock(
      lock,
      async () => {
        order.push('a start');
        await new Promise((r) => setTimeout(r, 150));
        order.push('a end');
      },
      { pollMs: 20 },
    );
    await new Promise((r) => setTimeout(r, 20));
    const waits: number[] = [];
    await withLock(lock, async () => void order.push('b'), { pollMs: 20, onWait: (pid) => waits.push(pid) });
    await slow;
    expect(order).toEqual(['a start', 'a end', 'b']);
    expect(waits).toEqual([process.pid]);
    await expect(stat(lock)).rejects.toThrow();
  });

  test('takes over a lock whose holder is dead', async () => {
    const lock = join(root, 'v1.37.1.lock');
    await writeFile(lock, '999999999');
    expect(await withLock(lock, async () => 'ran')).toBe('ran');
  });

  test('releases the lock when the body throws', async () => {
    const lock = join(root, 'x.lock');
    await expect(
      withLock(lock, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(readFile(lock)).rejects.toThrow();
  });
});
