import { describe, expect, test } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KUBE_BINARIES } from '../cluster/binaries/cache.ts';
import { useTempDir } from '../testing/tmp.ts';
import { describePlan, planVersions } from './qualify.ts';

const tmp = useTempDir('credprov-qualify-');

async function entry(
  root: string,
  kind: string,
  version: string,
  names: readonly string[],
  durationMs: number,
): Promise<void> {
  const dir = join(root, kind, version);
  await mkdir(dir, { recursive: true });
  const binaries: Record<string, { sha256: string; size: number }> = {};
  for (const n of names) {
    await writeFile(join(dir, n), 'x', { mode: 0o755 });
    binaries[n] = { sha256: '', size: 1 };
  }
  await writeFile(
    join(dir, 'manifest.json'),
    JSON.stringify({ version, source: 'build', origin: 't', binaries, createdAt: '', durationMs }),
  );
}

describe('qualify plan', () => {
  test('says per version what is cached and what must be built, with minutes from earlier builds here', async () => {
    const cache = tmp();
    await entry(cache, 'kube', 'v1.37.1', KUBE_BINARIES, 8 * 60_000);
    await entry(cache, 'kube', 'v1.36.5', ['kubelet'], 3 * 60_000); // a skew entry is not a cluster
    await entry(cache, 'containerd', 'v2.3.7', ['containerd', 'ctr', 'containerd-shim-runc-v2'], 60_000);
    const plan = await planVersions(['1.36', '1.37'], cache);
    expect(plan).toEqual([
      { requested: '1.36', containerdLine: '2.3', cachedContainerd: 'v2.3.7', buildMinutes: 8 },
      { requested: '1.37', cachedKube: 'v1.37.1', containerdLine: '2.3', cachedContainerd: 'v2.3.7', buildMinutes: 0 },
    ]);
    expect(describePlan(plan).at(-1)).toBe('builds first: about 8 min on this machine, once (cached afterwards)');
  });

  test('a version outside the version table is refused by name', async () => {
    await expect(planVersions(['1.29'], tmp())).rejects.toThrow(/outside the versions credprov models/);
  });
});
