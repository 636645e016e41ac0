import { describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import { restartNodeKubelet, specAfterKubeletChange, waitForKubelet } from './node-kubelet.ts';
import type { Runner } from './tools.ts';

/** A node whose kubelet answers each look with the next of `looks` ("<restarts> <healthz>"), then the last. */
function node(looks: string[], journal = ''): Runner & { calls: string[] } {
  const calls: string[] = [];
  let i = 0;
  const run = (async (_cmd: string, args: string[]) => {
    calls.push(args.join(' '));
    if (args.includes('journalctl')) return { exitCode: 0, stdout: journal, stderr: '' };
    return { exitCode: 0, stdout: looks[Math.min(i++, looks.length - 1)]!, stderr: '' };
  }) as Runner & { calls: string[] };
  run.calls = calls;
  return run;
}

describe("a kind node's kubelet after a restart", () => {
  test('done once /healthz answers ok', async () => {
    const run = node(['0 ', '0 ', '0 ok']);
    await waitForKubelet(run, 'n1', { intervalMs: 0 });
    expect(run.calls).toHaveLength(3);
  });

  test('a kubelet that exits (systemd restarts it) refused its config: its own error line, its journal as detail', async () => {
    const journal = [
      'I1 server.go] "Kubelet version" kubeletVersion="v1.37.1"',
      'E1 run.go] "Failed to register CRI auth plugins" err="duplicate provider name \\"a\\" found in configuration file(s)"',
      'I1 other line',
    ].join('\n');
    const run = node(['2 ', '3 '], journal);
    await expect(waitForKubelet(run, 'n1', { intervalMs: 0 })).rejects.toMatchObject({
      reason: expect.stringMatching(
        /^the kubelet of n1 exited after the restart: E1 run.go\] "Failed to register CRI auth plugins" err="duplicate provider name/,
      ),
      detail: journal,
    });
  });

  test('a kubelet that neither answers nor exits is an error too', async () => {
    const run = node(['0 ']);
    await expect(waitForKubelet(run, 'n1', { intervalMs: 0, timeoutMs: -1 })).rejects.toThrow(
      'the kubelet of n1 did not answer /healthz within 60s',
    );
  });
});

/** A node whose /var/lib/kubelet is a temp dir: `docker exec` runs the command here, with the path rewritten. */
function nodeOnDisk(dir: string): Runner {
  return async (_docker, args, opts) => {
    const argv = args.filter((a) => a !== '-i').slice(2);
    if (argv[0] === 'systemctl') return { exitCode: 0, stdout: '', stderr: '' };
    if (argv.at(-1)?.includes('/healthz')) return { exitCode: 0, stdout: '0 ok', stderr: '' };
    const [cmd, ...rest] = argv.map((a) => a.replaceAll('/var/lib/kubelet', dir));
    const r = await execa(cmd!, rest, { input: opts?.input ?? '', reject: false });
    return { exitCode: r.exitCode ?? 1, stdout: r.stdout, stderr: r.stderr };
  };
}

function specWith(gates: Record<string, boolean>, config: Record<string, unknown> = {}): EnvironmentSpec {
  return {
    kubelet: { config, extraArgs: [] },
    featureGates: { kubelet: gates, apiserver: {} },
  } as unknown as EnvironmentSpec;
}

describe("a kind node's kubelet config across restarts", () => {
  test("every restart starts from kubeadm's config: a gate or field an earlier restart set does not outlive its spec", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-kind-node-'));
    try {
      const kubeadm = { kind: 'KubeletConfiguration', featureGates: { KubeletEnsureSecretPulledImages: true } };
      await writeFile(join(dir, 'config.yaml'), stringify(kubeadm));
      await writeFile(join(dir, 'kubeadm-flags.env'), 'KUBELET_KUBEADM_ARGS="--node-ip=172.18.0.2"\n');
      const run = nodeOnDisk(dir);
      const written = async () => parse(await readFile(join(dir, 'config.yaml'), 'utf8')) as Record<string, unknown>;

      await restartNodeKubelet(
        run,
        'n1',
        specWith({ KubeletServiceAccountTokenForCredentialProviders: false }, { imageMaximumGCAge: '1m' }),
        { v: '4' },
      );
      expect(await written()).toMatchObject({
        featureGates: {
          KubeletEnsureSecretPulledImages: true,
          KubeletServiceAccountTokenForCredentialProviders: false,
        },
        imageMaximumGCAge: '1m',
      });

      await restartNodeKubelet(run, 'n1', specWith({}), {});
      expect(await written()).toEqual(kubeadm);
      expect(await readFile(join(dir, 'kubeadm-flags.env'), 'utf8')).toBe(
        'KUBELET_KUBEADM_ARGS="--node-ip=172.18.0.2 "\n',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

test("a kubelet change's feature gates replace the kubelet's set, as the provider contract says", () => {
  const off = specAfterKubeletChange(specWith({ A: true }), { featureGates: { B: false } });
  expect(off.featureGates.kubelet).toEqual({ B: false });
  expect(specAfterKubeletChange(off, { featureGates: {} }).featureGates.kubelet).toEqual({});
  expect(specAfterKubeletChange(off, {}).featureGates.kubelet).toEqual({ B: false });
});

test('exitExpected changes nothing a kind node is given (kind has no component watch to tell)', () => {
  const spec = specWith({ A: true });
  expect(specAfterKubeletChange(spec, { exitExpected: true })).toEqual(specAfterKubeletChange(spec, {}));
});
