// Tear-down of a local environment, in dependency order, tolerant of any
// partial state: a failed up(), a crashed run, or a second `down`. Each phase
// logs what it could not do and carries on; only leftovers it can name are
// reported at the end.
import { readdir, readFile, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Logger } from '../../core/logger.ts';
import { isAlive, isZombie } from '../../core/pids.ts';
import { stopDaemon } from './daemon.ts';
import { sleep } from '../../core/time.ts';
import type { Layout } from './layout.ts';
import type { LocalState } from './context.ts';
import { cgroupHierarchies } from './steps/createCgroupRoot.ts';
import { HostsFile } from '../../core/hosts.ts';
import { pruneOrphanedRegistries, pruneRegistryHosts } from '../../../registry/index.ts';
import { hostIdentity, nodeIdentities } from './identity.ts';
import { cniStateFiles, environmentProcesses, mountsUnder, podNetns } from './leftovers.ts';

export async function teardown(layout: Layout, state: LocalState | undefined, log: Logger): Promise<string[]> {
  const problems: string[] = [];
  const attempt = async (what: string, fn: () => Promise<unknown>) => {
    const started = performance.now();
    try {
      await fn();
    } catch (err) {
      problems.push(`${what}: ${(err as Error).message}`);
      log.warn(`down: ${what}: ${(err as Error).message}`);
    }
    // `credprov --verbose down` shows where a slow teardown spends its time.
    log.debug(`down: ${what}: ${Math.round(performance.now() - started)}ms`);
  };
  // Names and addresses come from the environment's name: a run that died before saving its state still made them.
  const id = hostIdentity(layout.name);
  // Every daemon at once, with SIGKILL: everything they stored goes below, so none needs a graceful stop, and a
  // kubelet cannot restart a container once its containerd is gone. No container is stopped through containerd
  // (a ctr call per container took 27 s after the default run's ~150 pods): the shims are killed, the pods'
  // processes are found by their cgroup and killed, and their network namespaces are known from libcni's result
  // cache. Both nodes' daemons, whatever the state says: a run that died before saving it may have started them.
  await attempt('stopping every daemon', () => Promise.all(DAEMONS.map((name) => stopDaemon(layout.pids, name, 0))));
  await attempt('killing leftover shims', () => killShims([layout.containerdSocket, layout.second.containerdSocket]));
  // What no pid file names: pods (by their cgroup), a daemon started just before its `up` died (no pid
  // file yet), plugins the kubelet was running.
  await attempt("killing the environment's remaining processes", () =>
    killEnvironmentProcesses(layout.name, id.cgroupRoot),
  );
  const netns = new Set<string>();
  await attempt('finding pod network namespaces', async () =>
    (await Promise.all(nodeIdentities(id).map(podNetns))).flat().forEach((p) => netns.add(p)),
  );
  await attempt('unmounting', () => unmountUnder([layout.root, ...netns]));
  // Nothing below depends on another: each goes at once.
  await Promise.all([
    attempt('removing pod network namespaces', () => Promise.all([...netns].map((ns) => rm(ns, { force: true })))),
    attempt('removing the state dir', () => rm(layout.root, { recursive: true, force: true, maxRetries: 3 })),
    attempt('removing the links', () =>
      Promise.all(
        [
          state?.cniBridge ?? id.cniBridge,
          state?.secondNode?.cniBridge ?? id.second.cniBridge,
          state?.nodeLink ?? id.nodeLink,
        ].map(removeLink),
      ),
    ),
    // Sandboxes are killed, not stopped through CRI, so CNI DEL never ran: its IPAM and result cache are ours to clear.
    attempt('removing CNI state', async () => {
      const files = (await Promise.all(nodeIdentities(id).map(cniStateFiles))).flat();
      await Promise.all(files.map((f) => rm(f, { recursive: true, force: true })));
    }),
    attempt('removing the cgroup root', () => removeCgroupRoot(id.cgroupRoot)),
    // Registries a suite run started die with it, but a SIGKILLed run leaves them running: clear any whose run is gone.
    attempt('removing registries of runs that died', async () => {
      for (const dir of await pruneOrphanedRegistries({ logger: log }))
        log.info(`down: removed registry ${dir}, whose run died`);
      await pruneRegistryHosts(new HostsFile());
    }),
  ]);
  return problems;
}

/**
 * SIGKILLs the environment's own processes until none is left, for up to 5 s: every process its cgroup tree
 * lists (the pods: a read per cgroup) and every process naming its state dir (environmentProcesses, owned,
 * without a cgroup read per process on the host: that scan took 2 s under load).
 */
async function killEnvironmentProcesses(envName: string, cgroupRoot: string): Promise<void> {
  const kill = (pid: number) => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  };
  const deadline = Date.now() + 5000;
  for (;;) {
    // The cgroup tree is read again each round: a pod process may fork after a read. The scan then needs no cgroup
    // test of its own; it finds what names the state dir (components, shims, plugins).
    const [inTree, named] = await Promise.all([
      cgroupProcesses(cgroupRoot),
      environmentProcesses(envName, { owned: true, byCgroup: false }),
    ]);
    const left = [...new Set([...inTree.filter((p) => isAlive(p) && !isZombie(p)), ...named.map((p) => p.pid)])];
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      const what = new Map(named.map((p) => [p.pid, p.cmdline.slice(0, 80)]));
      throw new Error(`still running: ${left.map((p) => `${p} (${what.get(p) ?? 'in the cgroup tree'})`).join(', ')}`);
    }
    left.forEach(kill);
    await sleep(50);
  }
}

/** Every daemon a local environment may run (pid file names). */
const DAEMONS = [
  'kubelet',
  'kubelet-b',
  'containerd',
  'containerd-b',
  'kube-scheduler',
  'kube-controller-manager',
  'kube-apiserver',
  'etcd',
];

/**
 * Pids in the cgroup tree `root` (no leading slash) of one hierarchy: cgroup v2's, or v1's pids or memory
 * controller, which runc puts every container into (a miss is caught by the /proc scan after).
 */
async function cgroupProcesses(root: string): Promise<number[]> {
  const all = await cgroupHierarchies();
  const hierarchy =
    all.find((h) => h.endsWith('/pids')) ??
    all.find((h) => h.endsWith('/memory')) ??
    (all.length === 1 ? all[0] : undefined);
  if (!hierarchy) return [];
  const pids: number[] = [];
  const walk = async (dir: string): Promise<void> => {
    const procs = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
    for (const line of procs.split('\n')) if (line) pids.push(Number(line));
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    await Promise.all(entries.filter((e) => e.isDirectory()).map((e) => walk(join(dir, e.name))));
  };
  await walk(join(hierarchy, root));
  return pids.filter((p) => Number.isInteger(p) && p > 1 && p !== process.pid);
}

/** Shims outlive containerd; ours are the ones whose -address is one of our sockets. */
async function killShims(sockets: string[]): Promise<void> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const argv = cmdline.split('\0');
    if (argv[0]?.endsWith('containerd-shim-runc-v2') && sockets.some((s) => argv.includes(s))) pids.push(Number(entry));
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  // A zombie holds nothing: waiting for init to reap it took over a second under load.
  const deadline = Date.now() + 3000;
  while (pids.some((p) => isAlive(p) && !isZombie(p)) && Date.now() < deadline) await sleep(20);
}

/** Unmounts everything below `roots`, deepest first, in one umount call; what stays busy is detached (umount -l). */
async function unmountUnder(roots: string[]): Promise<void> {
  const remaining = async () => mountsUnder(await readFile('/proc/self/mountinfo', 'utf8'), roots);
  let points = await remaining();
  // One process for all of them: a umount per mount point took 3 s for the default run's ~300 mounts.
  if (points.length > 0) await execa('umount', points, { reject: false });
  points = await remaining();
  if (points.length === 0) return;
  // Busy (a process we could not kill still holds it): detach so the dir can go.
  const lazy = await execa('umount', ['-l', ...points], { reject: false });
  points = await remaining();
  if (points.length > 0) throw new Error(`could not unmount ${points.join(', ')}: ${lazy.stderr.trim()}`);
}

async function removeLink(name: string): Promise<void> {
  const r = await execa('ip', ['link', 'show', name], { reject: false });
  if (r.exitCode !== 0) return;
  const del = await execa('ip', ['link', 'delete', name], { reject: false });
  if (del.exitCode !== 0) throw new Error(del.stderr.trim());
}

/** The environment's own cgroup root in every hierarchy; cgroups can only go once empty, deepest first. */
async function removeCgroupRoot(name: string): Promise<void> {
  for (const h of await cgroupHierarchies()) await removeTree(join(h, name));
}

async function removeTree(dir: string): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) if (e.isDirectory()) await removeTree(join(dir, e.name));
  await rmdir(dir).catch(() => {});
}
