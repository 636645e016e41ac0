// What each environment provider needs, and what this machine has. Every
// probe is one line: ✓/✗, what was found, and for a ✗ the fix. The verdict per
// provider is its own isAvailable() plus the probes marked required for it,
// so doctor and `credprov up` never disagree about whether a provider can run.
import { access, constants, readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { kubeCacheRoot, listEntries } from '../cluster/binaries/cache.ts';
import { containerdCacheRoot, containerdSupports, listContainerd } from '../cluster/binaries/containerd.ts';
import { compareVersions } from '../cluster/binaries/versions.ts';
import { availabilityOf, kindHints, probeKind, type ProbeOptions } from '../cluster/kind/availability.ts';
import type { Runner } from '../cluster/kind/tools.ts';
import type { Availability } from '../cluster/provider.ts';
import { cacheDir } from '../core/paths.ts';
import { behaviourFor, parseKubeVersion } from '../versions/table.ts';

export interface Probe {
  id: string;
  label: string;
  ok: boolean;
  detail: string;
  hint?: string;
}

export interface ProviderReport {
  provider: 'local' | 'kind' | 'existing';
  ok: boolean;
  /** Why it cannot run (the provider's own reason, or the first failed required probe). */
  reason?: string;
  probes: Probe[];
}

export interface DoctorReport {
  kubeVersion: string;
  /** The provider `credprov up` picks (auto: local, then kind). */
  defaultProvider: 'local' | 'kind' | 'none';
  providers: ProviderReport[];
  /** Shared by every provider: registries, cgroups, the cache. */
  machine: Probe[];
}

export interface DoctorHost {
  run: Runner;
  env: NodeJS.ProcessEnv;
  uid: number;
  /** Root of /sys/fs/cgroup (tests point it at a fake tree). */
  cgroupRoot?: string;
  hostsFile?: string;
  /** Provider verdicts; injected so tests need no real providers. */
  availability: Record<'local' | 'kind' | 'existing', () => Promise<Availability>>;
  /** What the kind probe would otherwise read off this host (its engine, its bounding set, dockerd); tests fix them. */
  kind?: Pick<ProbeOptions, 'engine' | 'capSysResource' | 'dockerdPresent'>;
}

const ok = (id: string, label: string, detail: string): Probe => ({ id, label, ok: true, detail });
const bad = (id: string, label: string, detail: string, hint: string): Probe => ({
  id,
  label,
  ok: false,
  detail,
  hint,
});

export async function which(name: string, env: NodeJS.ProcessEnv, extra: string[] = []): Promise<string | undefined> {
  for (const dir of [...extra, ...(env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin']) {
    if (!dir) continue;
    const p = join(dir, name);
    if (
      await access(p, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return p;
  }
  return undefined;
}

export async function cgroupMode(root = '/sys/fs/cgroup'): Promise<'v2' | 'v1-hybrid' | 'v1' | 'unknown'> {
  if (await exists(join(root, 'cgroup.controllers'))) return 'v2';
  if (await exists(join(root, 'unified', 'cgroup.controllers'))) return 'v1-hybrid';
  if ((await exists(join(root, 'memory'))) || (await exists(join(root, 'cpu')))) return 'v1';
  return 'unknown';
}

async function versionOf(run: Runner, bin: string, args: string[], re: RegExp): Promise<string | undefined> {
  const r = await run(bin, args, { timeoutMs: 15_000 });
  return re.exec(`${r.stdout}\n${r.stderr}`)?.[1];
}

export async function runDoctor(host: DoctorHost, kubeVersionSpec: string): Promise<DoctorReport> {
  const kv = parseKubeVersion(kubeVersionSpec);
  const behaviour = behaviourFor(kv);
  const cache = cacheDir(host.env);
  const machine = await machineProbes(host, kv.text);
  const local = await localProbes(host, kv.text, behaviour.containerdSupported, cache);
  const kindProbe = await probeKind(host.run, kv.text, {
    env: host.env,
    ...host.kind,
    ...(host.env.CREDPROV_KIND_NODE_IMAGE ? { imageOverride: host.env.CREDPROV_KIND_NODE_IMAGE } : {}),
  });
  const kindAvail = availabilityOf(kindProbe);
  const hints = kindHints(kindProbe, kv.text);
  const kindReport: ProviderReport = {
    provider: 'kind',
    ok: kindAvail.ok,
    ...(kindAvail.ok ? {} : { reason: kindAvail.reason }),
    probes: [
      kindProbe.kind.ok
        ? ok('kind', 'kind CLI', kindProbe.kind.detail)
        : bad('kind', 'kind CLI', kindProbe.kind.detail, hints.shift() ?? ''),
      kindProbe.docker.ok
        ? ok('docker', 'Docker engine', kindProbe.docker.detail)
        : bad('docker', 'Docker engine', kindProbe.docker.detail, hints.find((h) => h.includes('docker')) ?? ''),
      kindProbe.image.ok
        ? ok('node-image', 'node image', kindProbe.image.detail)
        : bad('node-image', 'node image', kindProbe.image.detail, hints.find((h) => h.startsWith('load')) ?? ''),
    ],
  };
  const existing = await existingProbes(host);
  const providers = [local, kindReport, existing];
  const defaultProvider = local.ok ? 'local' : kindReport.ok ? 'kind' : 'none';
  return { kubeVersion: kv.text, defaultProvider, providers, machine };
}

async function machineProbes(host: DoctorHost, kubeVersion: string): Promise<Probe[]> {
  const probes: Probe[] = [];
  const mode = await cgroupMode(host.cgroupRoot);
  const refusesV1ByDefault = behaviourFor(kubeVersion).failCgroupV1Default;
  probes.push(
    mode === 'v2'
      ? ok('cgroup', 'cgroups', 'v2 (unified)')
      : ok(
          'cgroup',
          'cgroups',
          `${mode}${refusesV1ByDefault ? `: kubelet ${kubeVersion} refuses cgroup v1 unless failCgroupV1: false (the local and kind providers set it)` : ''}`,
        ),
  );
  const registry = (await which('docker-registry', host.env)) ?? (await which('registry', host.env));
  if (registry) {
    const v = await versionOf(host.run, registry, ['--version'], /\s(v?\d+\.\d+\.\d+\S*)/);
    probes.push(ok('docker-registry', 'registry (distribution)', `${registry}${v ? ` ${v}` : ''}`));
  } else {
    probes.push(
      bad(
        'docker-registry',
        'registry (distribution)',
        'not found',
        "apt-get install docker-registry (or put distribution's registry on PATH)",
      ),
    );
  }
  const kube = (await listEntries(kubeCacheRoot(cacheDir(host.env)))).map((m) => `${m.version} (${m.source})`);
  probes.push(ok('kube-cache', 'cached kube binaries', kube.length > 0 ? kube.join(', ') : 'none yet'));
  const ctrd = (await listContainerd(containerdCacheRoot(cacheDir(host.env)))).map((m) => m.version);
  probes.push(ok('containerd-cache', 'cached containerd builds', ctrd.length > 0 ? ctrd.join(', ') : 'none yet'));
  return probes;
}

async function localProbes(
  host: DoctorHost,
  kubeVersion: string,
  containerdSupported: string[],
  cache: string,
): Promise<ProviderReport> {
  const probes: Probe[] = [];
  probes.push(
    host.uid === 0
      ? ok('root', 'root', 'running as root')
      : bad('root', 'root', `uid ${host.uid}`, 'run as root (mounts, network namespaces, cgroups)'),
  );

  const kubeEntries = await listEntries(kubeCacheRoot(cache));
  const cachedKube = kubeEntries.find((m) => m.version === kubeVersion);
  const go = await which('go', host.env, ['/usr/local/go/bin']);
  const goVersion = go ? await versionOf(host.run, go, ['env', 'GOVERSION'], /go(\d+\.\d+(?:\.\d+)?)/) : undefined;
  const goOk = goVersion !== undefined && compareVersions(goVersion, '1.26.0') >= 0;
  if (host.env.CREDPROV_BIN_DIR)
    probes.push(
      ok('kube-binaries', `kube binaries ${kubeVersion}`, `from CREDPROV_BIN_DIR ${host.env.CREDPROV_BIN_DIR}`),
    );
  else if (cachedKube)
    probes.push(ok('kube-binaries', `kube binaries ${kubeVersion}`, `cached (${cachedKube.source})`));
  else if (goOk)
    probes.push(
      ok(
        'kube-binaries',
        `kube binaries ${kubeVersion}`,
        `not cached; Go ${goVersion} will build them on first use (credprov binaries ensure --kube-version ${kubeVersion})`,
      ),
    );
  else
    probes.push(
      bad(
        'kube-binaries',
        `kube binaries ${kubeVersion}`,
        `not cached and ${go ? `Go ${goVersion ?? '?'} is older than 1.26` : 'no Go toolchain'}`,
        `install Go >= 1.26 and run credprov binaries ensure --kube-version ${kubeVersion}, or set CREDPROV_BIN_DIR`,
      ),
    );
  probes.push(
    go
      ? ok('go', 'Go toolchain', `${go} (go${goVersion ?? '?'})`)
      : {
          ...bad(
            'go',
            'Go toolchain',
            'not found',
            'install Go >= 1.26 (needed only to build binaries that are not cached)',
          ),
          ok: cachedKube !== undefined,
        },
  );

  const ctrDir = host.env.CREDPROV_CONTAINERD_DIR;
  const containerd = await which('containerd', host.env, ctrDir ? [ctrDir] : []);
  const cVersion = containerd ? await versionOf(host.run, containerd, ['--version'], /\s(v?\d+\.\d+\.\d+)/) : undefined;
  // The order `up` resolves containerd in (src/cluster/local/binaries.ts): CREDPROV_CONTAINERD_DIR,
  // then a cached (or buildable) supported release, then PATH. Debian's docker.io
  // puts containerd 1.6 on PATH, which up never uses while a supported build exists.
  const built = (await listContainerd(containerdCacheRoot(cache))).find((m) =>
    containerdSupports(m.version, containerdSupported),
  );
  const pathSupported =
    containerd !== undefined && cVersion !== undefined && containerdSupports(cVersion, containerdSupported);
  const needs = `needs ${containerdSupported.map((v) => `${v}+`).join(' or ')}`;
  const onPath = containerd ? `${containerd} ${cVersion ?? '(version unknown)'}` : undefined;
  if (ctrDir) {
    probes.push(
      pathSupported
        ? ok('containerd', 'containerd', `${onPath} (CREDPROV_CONTAINERD_DIR)`)
        : bad(
            'containerd',
            'containerd',
            `CREDPROV_CONTAINERD_DIR=${ctrDir}: ${onPath ?? 'no containerd there'} is not supported by kubelet ${kubeVersion} (${needs})`,
            built
              ? `export CREDPROV_CONTAINERD_DIR=${join(containerdCacheRoot(cache), built.version)}, or unset it`
              : `unset CREDPROV_CONTAINERD_DIR; credprov binaries ensure --kube-version ${kubeVersion} builds a supported one`,
          ),
    );
  } else if (built) {
    probes.push(
      ok(
        'containerd',
        'containerd',
        `cached build ${built.version}${onPath && !pathSupported ? ` (used instead of ${onPath} on PATH, which kubelet ${kubeVersion} does not support)` : ''}`,
      ),
    );
  } else if (goOk) {
    probes.push(
      ok(
        'containerd',
        'containerd',
        `not cached; Go ${goVersion} will build a supported release on first use (credprov binaries ensure --kube-version ${kubeVersion})`,
      ),
    );
  } else if (pathSupported) {
    probes.push(ok('containerd', 'containerd', `${onPath} (PATH)`));
  } else {
    probes.push(
      bad(
        'containerd',
        'containerd',
        `${onPath ? `${onPath} is not supported by kubelet ${kubeVersion} (${needs})` : 'not found'} and none is cached`,
        `install Go >= 1.26 and run credprov binaries ensure --kube-version ${kubeVersion}, or set CREDPROV_CONTAINERD_DIR to a supported containerd`,
      ),
    );
  }
  const runc = await which('runc', host.env, ctrDir ? [ctrDir] : []);
  const runcV = runc ? await versionOf(host.run, runc, ['--version'], /runc version (\S+)/) : undefined;
  probes.push(
    runc
      ? ok('runc', 'runc', `${runc} ${runcV ?? ''}`.trim())
      : bad('runc', 'runc', 'not found', 'apt-get install runc'),
  );
  const cniDir = ['/usr/lib/cni', '/opt/cni/bin'];
  const cniFound: string[] = [];
  for (const d of cniDir)
    for (const p of ['bridge', 'host-local', 'loopback']) if (await exists(join(d, p))) cniFound.push(`${d}/${p}`);
  const cniOk = ['bridge', 'host-local', 'loopback'].every((p) => cniFound.some((f) => f.endsWith(`/${p}`)));
  probes.push(
    cniOk
      ? ok('cni', 'CNI plugins', 'bridge, host-local, loopback in /usr/lib/cni')
      : bad(
          'cni',
          'CNI plugins',
          `found: ${cniFound.join(', ') || 'none'}`,
          'apt-get install containernetworking-plugins',
        ),
  );
  const etcd = host.env.CREDPROV_ETCD ?? (await which('etcd', host.env));
  const etcdV = etcd ? await versionOf(host.run, etcd, ['--version'], /etcd Version: (\S+)/) : undefined;
  probes.push(
    etcd
      ? ok('etcd', 'etcd', `${etcd} ${etcdV ?? ''}`.trim())
      : bad('etcd', 'etcd', 'not found', 'apt-get install etcd-server, or set CREDPROV_ETCD'),
  );
  const openssl = await which('openssl', host.env);
  probes.push(
    openssl ? ok('openssl', 'openssl', openssl) : bad('openssl', 'openssl', 'not found', 'apt-get install openssl'),
  );
  const hostsFile = host.hostsFile ?? '/etc/hosts';
  const hostsW = await access(hostsFile, constants.W_OK).then(
    () => true,
    () => false,
  );
  probes.push(
    hostsW
      ? ok('hosts', `${hostsFile} writable`, 'registry names can be added')
      : bad(
          'hosts',
          `${hostsFile} writable`,
          'not writable',
          'run as root; registries are reached under their own names',
        ),
  );
  const port = await bindLoopback();
  probes.push(
    port
      ? ok('ports', 'loopback ports', `can bind 127.0.0.1 (ports are picked free at start-up, e.g. ${port})`)
      : bad('ports', 'loopback ports', 'cannot bind 127.0.0.1', 'check the loopback interface'),
  );

  const verdict = await host.availability.local();
  const failed = probes.find((p) => !p.ok);
  const okAll = verdict.ok && !failed;
  return {
    provider: 'local',
    ok: okAll,
    ...(okAll ? {} : { reason: !verdict.ok ? verdict.reason : `${failed!.label}: ${failed!.detail}` }),
    probes,
  };
}

async function existingProbes(host: DoctorHost): Promise<ProviderReport> {
  const kc = host.env.CREDPROV_KUBECONFIG;
  const probes: Probe[] = [];
  if (!kc)
    probes.push(
      bad(
        'kubeconfig',
        'kubeconfig',
        'CREDPROV_KUBECONFIG is not set',
        'export CREDPROV_KUBECONFIG=<kubeconfig of the cluster to test>',
      ),
    );
  else {
    const text = await readFile(kc, 'utf8').catch(() => undefined);
    probes.push(
      text === undefined
        ? bad('kubeconfig', 'kubeconfig', `${kc} cannot be read`, 'check the path')
        : ok('kubeconfig', 'kubeconfig', kc),
    );
  }
  const kubectl = await which('kubectl', host.env);
  probes.push(
    kubectl
      ? ok('kubectl', 'kubectl', kubectl)
      : bad('kubectl', 'kubectl', 'not found on PATH', 'put kubectl on PATH (credprov binaries ensure caches one)'),
  );
  const verdict = await host.availability.existing();
  return { provider: 'existing', ok: verdict.ok, ...(verdict.ok ? {} : { reason: verdict.reason }), probes };
}

async function bindLoopback(): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.on('error', () => resolve(undefined));
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => resolve(typeof a === 'object' && a ? a.port : undefined));
    });
  });
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/** Human rendering: one block per provider, the default marked, hints under each ✗. */
export function renderDoctor(r: DoctorReport): string {
  const line = (p: Probe) => [
    `    ${p.ok ? '✓' : '✗'} ${p.label}: ${p.detail}`,
    ...(p.ok || !p.hint ? [] : [`        hint: ${p.hint}`]),
  ];
  const out = [`credprov doctor (Kubernetes ${r.kubeVersion})`, '', 'machine:', ...r.machine.flatMap(line)];
  for (const p of r.providers) {
    out.push(
      '',
      `${p.provider}${r.defaultProvider === p.provider ? ' (default)' : ''}: ${p.ok ? 'can run' : `cannot run: ${p.reason}`}`,
      ...p.probes.flatMap(line),
    );
  }
  out.push(
    '',
    r.defaultProvider === 'none'
      ? 'no provider that credprov up can pick runs here'
      : `credprov up will use: ${r.defaultProvider}`,
  );
  return `${out.join('\n')}\n`;
}
