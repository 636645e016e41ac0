// What a local environment may leave on the host, kind by kind, found from
// its name alone (so it works after a crash, with no state file): processes,
// mounts, pod network namespaces, links, cgroups, CNI state, /etc/hosts lines,
// registries of dead runs, and the state dir. `down` uses the finders to know
// what to remove; tests and the soak use findLeftovers() to prove it did.
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { execa } from 'execa';
import { HostsFile, HOSTS_FILE } from '../../core/hosts.ts';
import { mapPool } from '../../core/pool.ts';
import { orphanedRegistries, ownerPidOf } from '../../../registry/index.ts';
import { hostIdentity, nodeIdentities, type HostIdentity, type NodeIdentity } from './identity.ts';
import { layoutFor } from './layout.ts';
import { cgroupHierarchies } from './steps/createCgroupRoot.ts';

export const LEFTOVER_KINDS = [
  'processes',
  'mounts',
  'netns',
  'links',
  'cgroups',
  'cniState',
  'hosts',
  'registries',
  'stateDir',
] as const;
export type LeftoverKind = (typeof LEFTOVER_KINDS)[number];
/** One line per thing left, by kind (empty arrays: clean). */
export type Leftovers = Record<LeftoverKind, string[]>;

export interface LeftoverScope {
  /** Also count processes carrying NAME=VALUE in their environment: a harness marks the CLI it starts, and every descendant inherits it. */
  marker?: { name: string; value: string };
  /** Pids of credprov processes (CLI runs) that have ended: /etc/hosts lines and registries they owned are leftovers. */
  endedOwners?: number[];
  /** For the state dir (CREDPROV_STATE_DIR …). */
  env?: NodeJS.ProcessEnv;
  hostsFile?: string;
  /** Where in-process registries make their dirs (default the temp dir). */
  tmpDir?: string;
}

export const CNI_RESULTS_DIR = '/var/lib/cni/results';
export const CNI_NETWORKS_DIR = '/var/lib/cni/networks';
const NETNS_DIR = '/run/netns';

export async function findLeftovers(envName: string, scope: LeftoverScope = {}): Promise<Leftovers> {
  const id = hostIdentity(envName);
  const root = layoutFor(envName, scope.env).root;
  const ended = new Set(scope.endedOwners ?? []);
  const [processes, mounts, netns, links, cgroups, cniState, hosts, registries, stateDir] = await Promise.all([
    environmentProcesses(envName, {
      ...(scope.marker ? { marker: scope.marker } : {}),
      ...(scope.env ? { env: scope.env } : {}),
    }).then((ps) => ps.map((p) => `${p.pid} ${p.cmdline.slice(0, 160)}`)),
    readFile('/proc/self/mountinfo', 'utf8').then((t) => mountsUnder(t, [root])),
    Promise.all(nodeIdentities(id).map(podNetns)).then((l) => l.flat()),
    environmentLinks(id),
    cgroupDirs(id),
    Promise.all(nodeIdentities(id).map(cniStateFiles)).then((l) => l.flat()),
    ended.size === 0
      ? []
      : new HostsFile(scope.hostsFile ?? HOSTS_FILE)
          .entries()
          .then((es) =>
            es
              .filter((e) => ended.has(hostsOwnerPid(e.owner) ?? -1))
              .map((e) => `${e.address} ${e.hostnames.join(' ')} (${e.owner})`),
          ),
    ended.size === 0
      ? []
      : orphanedRegistries({ ...(scope.tmpDir ? { dir: scope.tmpDir } : {}), ended: (pid) => ended.has(pid) }).then(
          (rs) => rs.map((r) => `${r.dir} (registry ${r.name} of pid ${ownerPidOf(r)})`),
        ),
    exists(root).then((e) => (e ? [root] : [])),
  ]);
  return { processes, mounts, netns, links, cgroups, cniState, hosts, registries, stateDir };
}

export function isClean(l: Leftovers): boolean {
  return LEFTOVER_KINDS.every((k) => l[k].length === 0);
}

/** `kind: item` lines, for a report or an assertion message. */
export function describeLeftovers(l: Leftovers): string[] {
  return LEFTOVER_KINDS.flatMap((k) => l[k].map((item) => `${k}: ${item}`));
}

export interface HostProcess {
  pid: number;
  cmdline: string;
}

/** What the local provider runs with paths under the state dir in its arguments. */
const COMPONENTS = new Set([
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'containerd',
  'containerd-shim-runc-v2',
  'runc',
  'kubelet',
  'ctr',
]);

/**
 * The environment's processes: any whose command line names a path under its
 * state dir (every component, shim and plugin does), or that lives in its
 * cgroup root (pods, whose shim may be gone), or carries `marker`. Zombies hold
 * nothing and are not counted; nor is this process.
 * `owned`: only those `down` may kill without asking: pods, the components and
 * plugins themselves, not (say) someone's `tail -f` of a log under the dir.
 */
export async function environmentProcesses(
  envName: string,
  o: {
    marker?: { name: string; value: string };
    env?: NodeJS.ProcessEnv;
    owned?: boolean;
    /** False: skip the cgroup test (down kills the cgroup tree's processes itself, and this scan is then a third as long). */
    byCgroup?: boolean;
  } = {},
): Promise<HostProcess[]> {
  const root = layoutFor(envName, o.env).root;
  const cgroup = `/${hostIdentity(envName).cgroupRoot}`;
  const marker = o.marker ? Buffer.from(`${o.marker.name}=${o.marker.value}\0`) : undefined;
  const entries = (await readdir('/proc')).filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid);
  // Several reads at once: one after another, a look at every process took seconds on a loaded host.
  const found = await mapPool(entries, 16, async (entry): Promise<HostProcess | undefined> => {
    const read = (f: string) => readFile(`/proc/${entry}/${f}`, 'utf8').catch(() => '');
    const argv = (await read('cmdline')).split('\0').filter(Boolean);
    const cmdline = argv.join(' ');
    const namesRoot = argv.some((arg) => arg === root || arg.includes(`${root}/`));
    const exe = argv[0] ?? '';
    // A plugin script runs as [interpreter, script, …]: the script is what lies under the dir.
    const owned =
      argv.slice(0, 2).some((a) => a.startsWith(`${root}/`)) || COMPONENTS.has(exe.slice(exe.lastIndexOf('/') + 1));
    const ours =
      (namesRoot && (!o.owned || owned)) ||
      (o.byCgroup !== false &&
        (await read('cgroup')).split('\n').some((l) => {
          const path = l.slice(l.indexOf(':', l.indexOf(':') + 1) + 1);
          return path === cgroup || path.startsWith(`${cgroup}/`);
        })) ||
      (!o.owned &&
        marker !== undefined &&
        (await readFile(`/proc/${entry}/environ`).catch(() => Buffer.alloc(0))).includes(marker));
    if (!ours) return undefined;
    // Zombies hold nothing (and a process gone meanwhile has no stat).
    const stat = await read('stat');
    if (!stat || /\) [ZX] /.test(stat)) return undefined;
    return { pid: Number(entry), cmdline };
  });
  return found.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
}

/** Mount points at or below any of `roots`, deepest first (from a mountinfo text). */
export function mountsUnder(mountinfo: string, roots: string[]): string[] {
  const points = mountinfo
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((p): p is string => !!p)
    .map((p) => p.replace(/\\040/g, ' '))
    .filter((p) => roots.some((r) => p === r || p.startsWith(`${r}/`)));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/**
 * The environment's pod network namespaces that still exist: those libcni's
 * result cache says it attached to the environment's network (readable after
 * containerd died), and any other whose interfaces carry an address in its pod
 * subnet. Only namespaces no cached result names are asked (`ip` per
 * namespace): the others are accounted for by the cache, ours or another
 * environment's.
 */
export async function podNetns(id: NodeIdentity): Promise<string[]> {
  const ours = new Set(await cniResultFiles(id));
  const found = new Set<string>();
  const named = new Set<string>();
  for (const f of await readdir(CNI_RESULTS_DIR).catch(() => [] as string[])) {
    const cached = await readFile(join(CNI_RESULTS_DIR, f), 'utf8').then(
      (t) => JSON.parse(t) as { netns?: string },
      () => undefined,
    );
    if (!cached?.netns) continue;
    const path = await realpath(cached.netns).catch(() => cached.netns!);
    named.add(path);
    if (ours.has(f)) found.add(path);
  }
  const unnamed = (await readdir(NETNS_DIR).catch(() => [] as string[]))
    .map((n) => join(NETNS_DIR, n))
    .filter((p) => !named.has(p));
  await mapPool(unnamed, 8, async (p) => {
    const r = await execa('ip', ['-n', basename(p), '-o', '-4', 'addr', 'show'], { reject: false, timeout: 5000 });
    if (r.exitCode === 0 && addressesIn(r.stdout, id.podSubnet)) found.add(p);
  });
  const present = await Promise.all([...found].map(async (p) => ((await exists(p)) ? p : undefined)));
  return present.filter((p): p is string => p !== undefined).sort();
}

/** Does `ip -o -4 addr` output hold an address inside `subnet` (a.b.c.d/n)? */
export function addressesIn(ipAddrOutput: string, subnet: string): boolean {
  const [base, bits] = subnet.split('/');
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  const net = (ipv4(base!) & mask) >>> 0;
  return [...ipAddrOutput.matchAll(/\binet (\d+\.\d+\.\d+\.\d+)\//g)].some((m) => (ipv4(m[1]!) & mask) >>> 0 === net);
}

function ipv4(a: string): number {
  return a.split('.').reduce((n, o) => ((n << 8) | Number(o)) >>> 0, 0);
}

/** libcni's cached results for the environment's network: `<network>-<container id>-<ifname>`. */
async function cniResultFiles(id: NodeIdentity): Promise<string[]> {
  const re = new RegExp(`^${id.cniNetwork.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-([0-9a-f]{64})-[^-]+$`);
  return (await readdir(CNI_RESULTS_DIR).catch(() => [] as string[])).filter((f) => re.test(f));
}

/**
 * CNI state the environment's pods left: the result cache of its network and
 * of the loopback network for the same sandboxes, and its IPAM dir. containerd
 * removes them when it stops a sandbox, which a killed containerd never does.
 */
export async function cniStateFiles(id: NodeIdentity): Promise<string[]> {
  const ours = await cniResultFiles(id);
  const sandboxes = new Set(ours.map((f) => f.slice(id.cniNetwork.length + 1, id.cniNetwork.length + 65)));
  const loopback = (await readdir(CNI_RESULTS_DIR).catch(() => [] as string[])).filter((f) => {
    const m = /^cni-loopback-([0-9a-f]{64})-lo$/.exec(f);
    return m !== null && sandboxes.has(m[1]!);
  });
  const ipam = join(CNI_NETWORKS_DIR, id.cniNetwork);
  return [...[...ours, ...loopback].map((f) => join(CNI_RESULTS_DIR, f)), ...((await exists(ipam)) ? [ipam] : [])];
}

/** The environment's bridges, and any interface still enslaved to one of its nodes' CNI bridges. */
export async function environmentLinks(id: HostIdentity): Promise<string[]> {
  const r = await execa('ip', ['-o', 'link', 'show'], { reject: false });
  const bridges = [id.cniBridge, id.second.cniBridge];
  return r.stdout.split('\n').flatMap((l) => {
    const name = /^\d+: ([^:@ ]+)/.exec(l)?.[1];
    if (!name) return [];
    const ours = name === id.nodeLink || bridges.some((b) => name === b || l.includes(` master ${b} `));
    return ours ? [name] : [];
  });
}

export async function cgroupDirs(id: HostIdentity): Promise<string[]> {
  const dirs = (await cgroupHierarchies()).map((h) => join(h, id.cgroupRoot));
  return (await Promise.all(dirs.map(async (d) => ((await exists(d)) ? d : undefined)))).filter(
    (d): d is string => d !== undefined,
  );
}

function hostsOwnerPid(owner: string): number | undefined {
  const m = /:pid(\d+)$/.exec(owner);
  return m ? Number(m[1]) : undefined;
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}
