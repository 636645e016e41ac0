import { afterAll, describe, expect, test } from '@jest/globals';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Runner } from '../cluster/kind/tools.ts';
import { containerdSupports } from '../cluster/binaries/containerd.ts';
import { cgroupMode, renderDoctor, runDoctor, type DoctorHost } from './doctor-checks.ts';
import { main } from './main.ts';

const tmp = mkdtempSync(join(tmpdir(), 'credprov-doctor-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function bin(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, '#!/bin/sh\nexit 0\n');
  chmodSync(p, 0o755);
  return p;
}

/** Answers `<binary> --version`-style probes by the binary's base name; kind and docker are absent. */
const runner: Runner = async (cmd) => {
  const answers: Record<string, string> = {
    containerd: 'containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+b1',
    runc: 'runc version 1.1.5+ds1',
    etcd: 'etcd Version: 3.4.23',
    go: 'go1.26.8',
    'docker-registry': 'docker-registry github.com/docker/distribution 2.8.2+ds1',
  };
  const name = basename(cmd);
  if (name === 'kind' || name === 'docker') return { exitCode: 127, stdout: '', stderr: '', missing: true };
  return { exitCode: 0, stdout: answers[name] ?? '', stderr: '' };
};

function host(over: Partial<DoctorHost> = {}, env: Record<string, string> = {}): DoctorHost {
  const pathDir = join(tmp, 'bin');
  for (const n of ['containerd', 'etcd', 'go', 'docker-registry', 'openssl', 'kubectl']) bin(pathDir, n);
  const cg = join(tmp, 'cgroup-v2');
  mkdirSync(cg, { recursive: true });
  writeFileSync(join(cg, 'cgroup.controllers'), 'cpu memory\n');
  const hostsFile = join(tmp, 'hosts');
  writeFileSync(hostsFile, '127.0.0.1 localhost\n');
  return {
    run: runner,
    env: { PATH: pathDir, CREDPROV_CACHE_DIR: join(tmp, 'cache'), ...env },
    uid: 0,
    cgroupRoot: cg,
    hostsFile,
    availability: {
      local: async () => ({ ok: true }),
      kind: async () => ({ ok: false, reason: 'kind is not on PATH' }),
      existing: async () => ({ ok: false, reason: 'no kubeconfig given' }),
    },
    kind: { engine: null, capSysResource: true, dockerdPresent: false },
    ...over,
  };
}

describe('containerd support by kube version', () => {
  test('accepts a patch at or above the minimum of its line, and newer lines', () => {
    expect(containerdSupports('v2.3.7', ['2.3.0', '2.2.0'])).toBe(true);
    expect(containerdSupports('2.2.0', ['2.3.0', '2.2.0'])).toBe(true);
    expect(containerdSupports('2.4.1', ['2.3.0', '2.2.0'])).toBe(true);
    expect(containerdSupports('2.1.5', ['2.2.0', '2.1.5', '1.7.28'])).toBe(true);
  });

  test('refuses older patches and older lines (Debian 12 containerd for kubelet 1.37)', () => {
    expect(containerdSupports('1.6.20', ['2.3.0', '2.2.0'])).toBe(false);
    expect(containerdSupports('2.1.4', ['2.2.0', '2.1.5', '1.7.28'])).toBe(false);
  });
});

describe('cgroup mode', () => {
  test('tells v2, hybrid v1 and plain v1 apart', async () => {
    const hybrid = join(tmp, 'cg-hybrid');
    mkdirSync(join(hybrid, 'unified'), { recursive: true });
    writeFileSync(join(hybrid, 'unified', 'cgroup.controllers'), '');
    const v1 = join(tmp, 'cg-v1');
    mkdirSync(join(v1, 'memory'), { recursive: true });
    expect(await cgroupMode(hybrid)).toBe('v1-hybrid');
    expect(await cgroupMode(v1)).toBe('v1');
  });
});

/** A Go too old to build anything, so only what is on PATH or cached counts. */
const oldGo: Runner = async (cmd, args, o) =>
  basename(cmd) === 'go' ? { exitCode: 0, stdout: 'go1.20.4', stderr: '' } : runner(cmd, args, o);

describe('doctor', () => {
  test('an unsupported containerd on PATH, none cached and no Go to build one: local cannot run, with a hint, and no default provider', async () => {
    const r = await runDoctor(host({ run: oldGo }), '1.37.1');
    const local = r.providers.find((p) => p.provider === 'local')!;
    expect(local.ok).toBe(false);
    const c = local.probes.find((p) => p.id === 'containerd')!;
    expect(c.ok).toBe(false);
    expect(c.detail).toContain('1.6.20 is not supported by kubelet v1.37.1 (needs 2.3.0+ or 2.2.0+)');
    expect(c.hint).toContain('credprov binaries ensure --kube-version v1.37.1');
    expect(local.reason).toMatch(/^kube binaries v1.37.1: not cached/);
    expect(r.defaultProvider).toBe('none');
  });

  test("an unsupported containerd on PATH (Debian docker.io's 1.6) does not stop local when Go can build a supported one, as up does", async () => {
    const r = await runDoctor(host(), '1.37.1');
    const c = r.providers.find((p) => p.provider === 'local')!.probes.find((p) => p.id === 'containerd')!;
    expect(c).toMatchObject({
      ok: true,
      detail: expect.stringContaining('Go 1.26.8 will build a supported release on first use'),
    });
  });

  test('with a supported containerd the local provider is the default and kube binaries may come from a Go build', async () => {
    const dir = join(tmp, 'ctrd');
    bin(dir, 'containerd');
    const supported: Runner = async (cmd, args, o) =>
      basename(cmd) === 'containerd'
        ? { exitCode: 0, stdout: 'containerd github.com/containerd/containerd/v2 v2.3.7 ', stderr: '' }
        : runner(cmd, args, o);
    const r = await runDoctor(host({ run: supported }, { CREDPROV_CONTAINERD_DIR: dir }), '1.37');
    expect(r.defaultProvider).toBe('local');
    const local = r.providers.find((p) => p.provider === 'local')!;
    expect(local.probes.find((p) => p.id === 'kube-binaries')).toMatchObject({
      ok: true,
      detail: expect.stringContaining('Go 1.26.8 will build them'),
    });
    expect(r.machine.find((p) => p.id === 'cgroup')?.detail).toBe('v2 (unified)');
  });

  test("the provider's own verdict wins over passing probes", async () => {
    const r = await runDoctor(
      host(
        {
          availability: {
            ...host().availability,
            local: async () => ({ ok: false, reason: 'needs root (mounts, network namespaces, cgroups)' }),
          },
        },
        { CREDPROV_CONTAINERD_DIR: join(tmp, 'ctrd') },
      ),
      '1.37.1',
    );
    expect(r.providers[0]).toMatchObject({ provider: 'local', ok: false });
  });

  test('kind lists kind (buildable with Go), the Docker engine and the node image, a hint under each missing one', async () => {
    const r = await runDoctor(host(), '1.36.3');
    const kind = r.providers.find((p) => p.provider === 'kind')!;
    expect(kind.probes.map((p) => [p.id, p.ok])).toEqual([
      ['kind', true],
      ['docker', false],
      ['node-image', false],
    ]);
    expect(kind.probes[0]!.detail).toMatch(/credprov builds kind v0\.33\.0 from the Go module proxy on first use/);
    expect(kind.probes.filter((p) => !p.ok).every((p) => p.hint)).toBe(true);
    expect(kind.probes[2]!.hint).toContain('kind v0.33.0 publishes kindest/node:v1.36.4');
    expect(kind.probes[2]!.detail).toBe(
      'credprov/kind-node:v1.36.3 is not built, and mmdebstrap is missing to build it',
    );
  });

  test('the text rendering marks each probe and puts the hint under a missing one', async () => {
    const text = renderDoctor(await runDoctor(host({ run: oldGo }), '1.37.1'));
    expect(text).toContain('credprov doctor (Kubernetes v1.37.1)');
    expect(text).toMatch(/\n {4}✗ containerd: .*\n {8}hint: /);
    expect(text).toMatch(/\n {4}✓ root: running as root\n/);
    expect(text.trimEnd().split('\n').pop()).toBe('no provider that credprov up can pick runs here');
  });
});

describe('credprov doctor command', () => {
  test('--json prints one JSON report and the exit code says whether the default provider can run', async () => {
    let out = '';
    const code = await main(['doctor', '--json'], {
      stdout: (s) => void (out += s),
      env: { ...process.env, CREDPROV_CACHE_DIR: join(tmp, 'cache') },
    });
    const report = JSON.parse(out) as { defaultProvider: string; providers: Array<{ provider: string }> };
    expect(report.providers.map((p) => p.provider)).toEqual(['local', 'kind', 'existing']);
    expect(code).toBe(report.defaultProvider === 'none' ? 3 : 0);
  }, 60_000);
});
