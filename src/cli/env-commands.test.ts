import { describe, test, expect } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliResult } from '../testing/cli.ts';

function cli(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(argv, { env: { ...process.env, ...env } });
}

describe('credprov run / up / down', () => {
  test('run rejects an unknown suite with a suggestion and exit code 2', async () => {
    const r = await cli(['run', '--suite', 'smok']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: run: unknown suite 'smok' (did you mean 'smoke'?)");
  });

  test('run --parallel takes a whole number from 1 to 4, before anything starts', async () => {
    for (const n of ['0', '5', 'two', '1.5']) {
      const r = await cli(['run', '--parallel', n]);
      expect({ n, code: r.code }).toEqual({ n, code: 2 });
      expect(r.stderr).toContain(`error: run: --parallel ${n} is not a whole number from 1 to 4`);
    }
  });

  test('binaries ensure --for tests: a fixed list (flags of a single build refused), and the files that wait for its late stage', async () => {
    const clash = await cli(['binaries', 'ensure', '--for', 'tests', '--only', 'kubelet']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('--for tests builds a fixed list; drop --only');
    const stray = await cli(['binaries', 'ensure', '--stage', 'late']);
    expect(stray.code).toBe(2);
    const listed = await cli(['binaries', 'ensure', '--for', 'tests', '--list-tests']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')).toContain('test/e2e/suites-local-late.e2e.test.ts');
  });

  test('up reports every problem of a bad spec file, with field paths, as an input error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-cli-'));
    try {
      const spec = join(dir, 'spec.yaml');
      await writeFile(spec, 'provider: docker\nkubelet: {nodname: x}\n');
      const r = await cli(['up', '--spec', spec]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('kubelet.nodname: unknown field');
      expect(r.stdout).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('up rejects a flag value the spec does not allow before doing any work', async () => {
    const r = await cli(['up', '--kube-version', '1.20', '--provider', 'local']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/kubeVersion: Kubernetes v1\.20 is outside the versions credprov models/);
  });

  test('down of an environment that does not exist succeeds and does nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-cli-'));
    try {
      const r = await cli(['down', '--name', 'nothing-here'], { CREDPROV_STATE_DIR: dir });
      expect(r.code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('help texts name the flags', async () => {
    expect((await cli(['run', '--help'])).stdout).toContain('--suite');
    expect((await cli(['up', '--help'])).stdout).toContain('last stdout line');
  });
});
