// `credprov down` leaves nothing behind: no kubelet, kube-apiserver, etcd or
// containerd process of either node (nor shims or pod processes), no mount (the
// data tmpfs among them), no network link, netns, cgroup or CNI state, no
// state dir — after a clean up, and after a crashed one.
import { afterAll, describe, expect } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { localProvider } from '../../src/cluster/local/index.ts';
import { layoutFor } from '../../src/cluster/local/layout.ts';
import { findLeftovers, LEFTOVER_KINDS, type Leftovers } from '../../src/cluster/local/leftovers.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { createPod, waitForPodOutcome } from '../../src/run/pods.ts';
import { applyDefaults } from '../../src/api/spec/defaults.ts';
import { main } from '../../src/cli/main.ts';
import { readEnvironment } from '../../src/cluster/detect.ts';
import { silentProgress } from '../../src/core/progress.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { busyboxImage, exportImageTar } from '../../registry/index.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const available = await localProvider().isAvailable();
const it = testIf(
  all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }),
);
const ENV_NAME = e2eEnvName('down');
const layout = layoutFor(ENV_NAME);

/** What the environment left on the host (src/cluster/local/leftovers.ts), plus the pod netns recorded from its containerd while it ran. */
async function leftovers(): Promise<Leftovers & { recordedNetns: string[] }> {
  const found = await findLeftovers(ENV_NAME);
  const present = await readdir('/run/netns').catch(() => [] as string[]);
  return { ...found, recordedNetns: [...ours].filter((n) => present.includes(n)) };
}

const CLEAN = { ...Object.fromEntries(LEFTOVER_KINDS.map((k) => [k, []])), recordedNetns: [] };
// Only this environment's pod network namespaces are ours to judge: other environments (and other
// test runs) on the host make and remove their own. Ours are read from our containerd's containers.
const ours = new Set<string>();
async function recordOurNetns(ctr: string, address: string): Promise<void> {
  const run = (args: string[]) => execa(ctr, ['--address', address, '-n', 'k8s.io', ...args], { reject: false });
  for (const id of (await run(['containers', 'ls', '-q'])).stdout.split('\n').filter(Boolean)) {
    for (const m of (await run(['containers', 'info', id])).stdout.matchAll(
      /"path":\s*"\/(?:var\/)?run\/netns\/([^"]+)"/g,
    ))
      ours.add(m[1]!);
  }
}

/** Up, and a pod running: a shim, a pause process, overlay mounts, a network namespace and CNI state to clean up. */
async function upWithPod(pod: string): Promise<Environment> {
  const code = await main(
    [
      'up',
      '--provider',
      'local',
      '--name',
      ENV_NAME,
      ...(process.env.CREDPROV_KUBE_BIN_DIR ? ['--bin-dir', process.env.CREDPROV_KUBE_BIN_DIR] : []),
    ],
    { stdout: () => {} },
  );
  expect(code).toBe(0);
  const env = (await readEnvironment(ENV_NAME))!;
  const tar = join(layout.root, 'bb.tar');
  await exportImageTar(await busyboxImage(), tar, 'localhost/credprov/busybox:down');
  await execa(env.containerd!.ctr, ['--address', env.containerd!.address, '-n', 'k8s.io', 'images', 'import', tar]);
  await createPod(env, { name: pod, image: 'localhost/credprov/busybox:down', pullPolicy: 'Never' });
  await waitForPodOutcome(env, pod, 60_000);
  await recordOurNetns(env.containerd!.ctr, env.containerd!.address);
  return env;
}

describe('credprov down', () => {
  afterAll(async () => {
    await localProvider().down(ENV_NAME);
  });

  it('DOWN-CLEAN: after `credprov up` and a pod that ran, down leaves no process, mount, link or state dir', async () => {
    const out: string[] = [];
    const code = await main(
      [
        'up',
        '--provider',
        'local',
        '--name',
        ENV_NAME,
        ...(process.env.CREDPROV_KUBE_BIN_DIR ? ['--bin-dir', process.env.CREDPROV_KUBE_BIN_DIR] : []),
      ],
      { stdout: (s) => out.push(s) },
    );
    expect(code).toBe(0);
    // The last stdout line is the one machine-readable JSON object scripts rely on.
    const printed = JSON.parse(out.join('').trim().split('\n').at(-1)!) as Record<string, string>;
    expect(printed).toMatchObject({ provider: 'local', name: ENV_NAME, kubeconfig: layout.adminKubeconfig });
    expect(printed.kubeVersion).toMatch(/^v1\.\d+\.\d+/);
    const env = (await readEnvironment(ENV_NAME))!;
    // A running pod means a shim, a pause process, overlay mounts and a network namespace to clean up.
    const tar = join(layout.root, 'bb.tar');
    await exportImageTar(await busyboxImage(), tar, 'localhost/credprov/busybox:down');
    await execa(env.containerd!.ctr, ['--address', env.containerd!.address, '-n', 'k8s.io', 'images', 'import', tar]);
    await createPod(env, { name: 'sleeper', image: 'localhost/credprov/busybox:down', pullPolicy: 'Never' });
    await waitForPodOutcome(env, 'sleeper', 60_000);
    await recordOurNetns(env.containerd!.ctr, env.containerd!.address);
    expect(ours.size).toBeGreaterThan(0);
    // The second node too: its own containerd, pod network, cgroup root and CNI state.
    const second = layout.second.containerdSocket;
    expect(env.nodes).toEqual([env.nodeName, `${env.nodeName}-b`]);
    await execa(env.containerd!.ctr, ['--address', second, '-n', 'k8s.io', 'images', 'import', tar]);
    const onSecond = { ...env, nodeName: env.nodes![1]! };
    await createPod(onSecond, { name: 'sleeper-b', image: 'localhost/credprov/busybox:down', pullPolicy: 'Never' });
    await waitForPodOutcome(onSecond, 'sleeper-b', 60_000);
    const before = ours.size;
    await recordOurNetns(env.containerd!.ctr, second);
    expect(ours.size).toBeGreaterThan(before);
    const during = await leftovers();
    expect(during.mounts).toContain(layout.data);
    expect(during.cgroups).not.toEqual([]);
    expect(during.cniState.some((f) => f.includes(`credprov-${ENV_NAME}.b`))).toBe(true);

    expect(await main(['down', '--name', ENV_NAME], { stdout: () => {} })).toBe(0);
    expect(await leftovers()).toEqual(CLEAN);
  }, 240_000);

  it('DOWN-IDEMPOTENT: a second down succeeds and changes nothing', async () => {
    expect(await main(['down', '--name', ENV_NAME], { stdout: () => {} })).toBe(0);
    expect(await leftovers()).toEqual(CLEAN);
  }, 60_000);

  it('DOWN-AFTER-CRASH: down clears an environment whose up was killed half way (no env.json)', async () => {
    const spec = applyDefaults({
      name: ENV_NAME,
      ...(process.env.CREDPROV_KUBE_BIN_DIR ? { binDir: process.env.CREDPROV_KUBE_BIN_DIR } : {}),
    });
    await localProvider().up(spec, silentProgress);
    // What a SIGKILLed `credprov up` leaves: running daemons and no env.json.
    await execa('rm', ['-f', layout.envFile]);
    expect((await leftovers()).processes).not.toEqual([]);
    expect(await main(['down', '--name', ENV_NAME], { stdout: () => {} })).toBe(0);
    expect(await leftovers()).toEqual(CLEAN);
  }, 240_000);

  it("DOWN-AFTER-CONTAINERD-KILLED: with containerd SIGKILLed under a running pod, down still removes the pod's processes, netns, cgroups and CNI state", async () => {
    // Before the fix, down asked the dead containerd for its sandboxes, got none, and left the
    // pause and container processes (their shim killed), their netns, cgroups and CNI cache.
    await upWithPod('orphan');
    const pid = Number((await readFile(join(layout.pids, 'containerd.pid'), 'utf8')).split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    const during = await leftovers();
    expect(during.netns).not.toEqual([]);
    expect(during.processes.some((p) => / \/pause$/.test(p))).toBe(true);
    expect(await main(['down', '--name', ENV_NAME], { stdout: () => {} })).toBe(0);
    expect(await leftovers()).toEqual(CLEAN);
  }, 240_000);
});
