import { expect, test } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../cluster/provider.ts';
import { mirrorPodName, removeStaticPod, writeStaticPod } from './sa-pods.ts';

test('a static pod is written whole (no dotfile left) and named by its mirror pod; removing it is idempotent', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-static-'));
  try {
    const env = { nodeName: 'node-a' } as Environment;
    const mirror = await writeStaticPod(env, dir, 'ns', { name: 'req', image: 'reg.test/x:v1', twice: true });
    expect(mirror).toBe('req-node-a');
    expect(mirrorPodName(env, 'req')).toBe('req-node-a');
    expect(await readdir(dir)).toEqual(['req.yaml']);
    const manifest = JSON.parse(await readFile(join(dir, 'req.yaml'), 'utf8')) as { spec: Record<string, unknown> };
    expect(manifest.spec).toMatchObject({ initContainers: [{ name: 'first' }], containers: [{ name: 'main' }] });
    await removeStaticPod(dir, 'req');
    await removeStaticPod(dir, 'req');
    expect(await readdir(dir)).toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
