import { describe, expect, test } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlWithKuberc } from './kubectl-kuberc.ts';

describe('kubectlWithKuberc', () => {
  test('runs with PATH, HOME and KUBERC alone: nothing of the caller leaks in', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'krc-test-'));
    try {
      const fake = join(dir, 'kubectl');
      await writeFile(fake, '#!/bin/sh\nenv | sort\necho "args: $*" >&2\nexit 3\n', { mode: 0o700 });
      process.env.KUBECONFIG_LEAK = 'x';
      const r = await kubectlWithKuberc(fake, {
        args: ['auth', 'whoami'],
        path: ['/usr/bin', '/bin'],
        home: dir,
        kuberc: '/k.yaml',
        timeoutMs: 10_000,
      });
      const vars = r.stdout.split('\n').map((l) => l.split('=')[0]);
      expect(vars.filter((v) => !['PWD', 'SHLVL', '_', ''].includes(v!))).toEqual(['HOME', 'KUBERC', 'PATH']);
      expect(r.stdout).toContain('KUBERC=/k.yaml');
      expect(r.stderr).toBe('args: auth whoami');
      expect(r.exitCode).toBe(3);
      const noKuberc = await kubectlWithKuberc(fake, { args: [], path: ['/bin'], home: dir, timeoutMs: 10_000 });
      expect(noKuberc.stdout).not.toContain('KUBERC');
    } finally {
      delete process.env.KUBECONFIG_LEAK;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
