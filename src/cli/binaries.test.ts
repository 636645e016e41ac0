import { afterAll, describe, expect, test } from '@jest/globals';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeKubeBinary } from '../cluster/binaries/testdata/fake-go.ts';
import { KUBE_BINARIES } from '../cluster/binaries/cache.ts';
import { runCli, type CliResult } from '../testing/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'credprov-binaries-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function release(version: string): string {
  const dir = join(tmp, version);
  mkdirSync(dir, { recursive: true });
  for (const n of KUBE_BINARIES) {
    writeFileSync(join(dir, n), fakeKubeBinary(n, version));
    chmodSync(join(dir, n), 0o755);
  }
  return dir;
}

function cli(argv: string[]): Promise<CliResult> {
  return runCli(argv, { env: { ...process.env, CREDPROV_CACHE_DIR: join(tmp, 'cache') } });
}

describe('credprov binaries', () => {
  test('ensure --dir prints the resolved binaries as JSON on the last stdout line', async () => {
    const dir = release('v1.36.3');
    const r = await cli(['binaries', 'ensure', '--kube-version', '1.36', '--dir', dir, '--skip-containerd']);
    expect(r.code).toBe(0);
    const last = JSON.parse(r.stdout.trimEnd().split('\n').pop()!) as Record<string, unknown>;
    expect(last).toMatchObject({
      version: 'v1.36.3',
      source: 'dir',
      kubelet: join(dir, 'kubelet'),
      kubeApiserver: join(dir, 'kube-apiserver'),
      kubectl: join(dir, 'kubectl'),
    });
  });

  test('ensure --dir with binaries of another version exits 2 with a one-line reason', async () => {
    const dir = release('v1.35.4');
    const r = await cli(['binaries', 'ensure', '--kube-version', '1.37.1', '--dir', dir, '--skip-containerd']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `error: --dir ${dir}: kubelet reports v1.35.4, not v1.37.1\n  hint: use binaries of v1.37.1, or pass --kube-version v1.35.4`,
    );
  });

  test('ensure rejects an unknown source and an unknown flag as usage errors', async () => {
    expect((await cli(['binaries', 'ensure', '--source', 'ftp'])).stderr).toContain(
      'error: binaries ensure: --source ftp is not one of dir, download, build',
    );
    const typo = await cli(['binaries', 'ensure', '--kube-versoin', '1.37']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean --kube-version?');
  });

  test('ensure --only kubeadm takes kubeadm from --dir when it reports the version; --for takes only kind', async () => {
    const dir = release('v1.37.1');
    writeFileSync(join(dir, 'kubeadm'), fakeKubeBinary('kubeadm', 'v1.37.1'));
    chmodSync(join(dir, 'kubeadm'), 0o755);
    const r = await cli([
      'binaries',
      'ensure',
      '--kube-version',
      '1.37.1',
      '--dir',
      dir,
      '--only',
      'kubeadm',
      '--skip-containerd',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.trimEnd().split('\n').pop()!)).toMatchObject({
      names: ['kubeadm'],
      kubeadm: join(dir, 'kubeadm'),
    });
    const bad = await cli(['binaries', 'ensure', '--for', 'minikube']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error: binaries ensure: --for minikube is not one of kind');
  });

  test('ls on an empty cache says how to fill it; --json lists nothing', async () => {
    const text = await cli(['binaries', 'ls']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('none (run: credprov binaries ensure)');
    expect(JSON.parse((await cli(['binaries', 'ls', '--json'])).stdout)).toEqual({
      kube: [],
      containerd: [],
      etcd: [],
      kind: [],
    });
  });
});
