import { expect, test } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../cluster/provider.ts';
import { klogErr, kubeletLogLines } from './kubelet-log.ts';

test("the kubelet's log lines with every needle, the last `max`; a klog line's err, unescaped", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-kubelet-log-'));
  try {
    const log = join(dir, 'kubelet.log');
    const line = (pod: string, err: string) => `E1 plugin.go:1] "Failed" pod="ns/${pod}" err="${err}"`;
    await writeFile(log, [line('a', 'x'), line('b', 'y'), line('a', 'say \\"no\\"'), 'other'].join('\n'));
    const env = {
      name: 'e',
      provider: 'local',
      kubelet: { rootDir: dir, configFile: '', log },
    } as unknown as Environment;
    expect(await kubeletLogLines(env, ['ns/a'])).toEqual([line('a', 'x'), line('a', 'say \\"no\\"')]);
    expect(await kubeletLogLines(env, ['ns/a'], 1)).toEqual([line('a', 'say \\"no\\"')]);
    expect(klogErr(line('a', 'say \\"no\\"'))).toBe('say "no"');
    expect(klogErr('no error here')).toBeUndefined();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
