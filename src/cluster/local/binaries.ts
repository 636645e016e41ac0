// Finds every binary the local provider runs: kube binaries through the
// shared resolver (src/cluster/binaries), etcd and containerd from the
// machine (or directories named by CREDPROV_ETCD / CREDPROV_CONTAINERD_DIR).
import { access, constants } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import { ConfigError, PrerequisiteError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { Progress } from '../../core/progress.ts';
import { ensureContainerd, resolveKubeBinaries } from '../binaries/index.ts';
import { containerdVersion } from '../binaries/containerd.ts';
import { reportedVersion } from '../binaries/probe.ts';
import type { LocalBinaries } from './context.ts';
import { behaviourFor, parseKubeVersion } from '../../versions/table.ts';
import { skewProblem } from '../../versions/skew.ts';

export async function which(name: string, path = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const dir of [...path.split(delimiter), '/usr/sbin', '/sbin']) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/** Machine binaries (not the kube ones): what isAvailable() checks before any work. containerd is optional here: the resolver can build it. */
export async function hostBinaries(env: NodeJS.ProcessEnv = process.env): Promise<{
  found: Partial<Record<'etcd' | 'runc' | 'openssl' | 'containerd' | 'ctr' | 'shim', string>>;
  missing: string[];
}> {
  const cdDir = env.CREDPROV_CONTAINERD_DIR;
  const lookup = async (name: string, preferDir?: string) =>
    (preferDir ? await which(name, preferDir) : undefined) ?? (await which(name, env.PATH));
  const required = {
    etcd: env.CREDPROV_ETCD ?? (await lookup('etcd')),
    runc: await lookup('runc', cdDir),
    openssl: await lookup('openssl'),
  };
  const optional = {
    containerd: await lookup('containerd', cdDir),
    ctr: await lookup('ctr', cdDir),
    shim: await lookup('containerd-shim-runc-v2', cdDir),
  };
  const missing = Object.entries(required)
    .filter(([, v]) => !v)
    .map(([k]) => k);
  return { found: { ...required, ...optional }, missing };
}

export async function resolveLocalBinaries(
  spec: EnvironmentSpec,
  progress: Progress,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LocalBinaries> {
  const host = await hostBinaries(env);
  if (host.missing.length > 0) {
    throw new PrerequisiteError(`the local provider needs ${host.missing.join(', ')} on this machine`, {
      hint: 'run scripts/setup.sh --cluster (apt-get install etcd-server runc openssl)',
    });
  }
  const kube = await kubeBinaries(spec, progress, log);
  const cd = await containerdBinaries(spec, host.found, progress, log, env);
  const supported = behaviourFor(kube.version).containerdSupported;
  if (!containerdSupports(cd.version, supported)) {
    progress.note(
      `containerd ${cd.version} is not in the support matrix of Kubernetes ${kube.version} (${supported.join(', ')} or newer patches); results may differ from a supported node`,
    );
  }
  const f = host.found as Required<Pick<typeof host.found, 'etcd' | 'runc'>>;
  return {
    ...kube,
    ...(await kubeletFor(spec, kube, progress, log)),
    etcd: f.etcd,
    containerd: cd.containerd,
    ctr: cd.ctr,
    containerdVersion: cd.version,
    runtimePath: [...new Set([dirname(cd.shim), dirname(f.runc)])].join(':'),
  };
}

/**
 * The kubelet binary: the control plane's own, or with kubelet.version (version
 * skew) that version's kubelet alone, resolved like every kube binary (cache,
 * download, Go proxy build).
 */
export async function kubeletFor(
  spec: EnvironmentSpec,
  kube: Pick<LocalBinaries, 'kubelet' | 'version'>,
  progress: Progress,
  log: Logger,
): Promise<Pick<LocalBinaries, 'kubelet' | 'kubeletVersion'>> {
  if (
    !spec.kubelet.version ||
    (parseKubeVersion(spec.kubelet.version).minor === parseKubeVersion(kube.version).minor &&
      (parseKubeVersion(spec.kubelet.version).patch ?? parseKubeVersion(kube.version).patch) ===
        parseKubeVersion(kube.version).patch)
  ) {
    return { kubelet: kube.kubelet, kubeletVersion: kube.version };
  }
  const skew = skewProblem(kube.version, spec.kubelet.version);
  if (skew) throw new ConfigError(skew, { problems: [{ field: 'kubelet.version', message: skew }] });
  const k = await resolveKubeBinaries({ version: spec.kubelet.version, names: ['kubelet'], progress, log });
  return { kubelet: k.kubelet, kubeletVersion: k.version };
}

/**
 * containerd, in order: $CREDPROV_CONTAINERD_DIR; the shared resolver's cached or
 * built release for this kube version; whatever is on PATH (with a warning,
 * since a distribution package may be older than the kubelet supports).
 */
async function containerdBinaries(
  spec: EnvironmentSpec,
  found: Partial<Record<'containerd' | 'ctr' | 'shim', string>>,
  progress: Progress,
  log: Logger,
  env: NodeJS.ProcessEnv,
): Promise<{ containerd: string; ctr: string; shim: string; version: string }> {
  const onPath =
    found.containerd && found.ctr && found.shim
      ? { containerd: found.containerd, ctr: found.ctr, shim: found.shim }
      : undefined;
  if (env.CREDPROV_CONTAINERD_DIR) {
    if (!onPath)
      throw new PrerequisiteError(
        `CREDPROV_CONTAINERD_DIR=${env.CREDPROV_CONTAINERD_DIR} lacks containerd, ctr or containerd-shim-runc-v2`,
      );
    return { ...onPath, version: await containerdVersion(onPath.containerd).catch(() => 'unknown') };
  }
  try {
    const c = await ensureContainerd({ kubeVersion: spec.kubeVersion, progress, log });
    return { containerd: c.containerd, ctr: c.ctr, shim: c.shim, version: c.version };
  } catch (err) {
    if (!onPath) throw err;
    const version = await containerdVersion(onPath.containerd).catch(() => 'unknown');
    log.warn(
      `no containerd release for ${spec.kubeVersion} (${(err as Error).message}); using ${onPath.containerd} ${version} from PATH`,
    );
    return { ...onPath, version };
  }
}

/** True when `version` is at or above the minimum patch of a supported minor line (containerd RELEASES.md matrix). */
export function containerdSupports(version: string, supported: string[]): boolean {
  const v = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!v) return false;
  return supported.some((min) => {
    const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(min);
    return !!m && m[1] === v[1] && m[2] === v[2] && Number(v[3]) >= Number(m[3]);
  });
}

async function kubeBinaries(
  spec: EnvironmentSpec,
  progress: Progress,
  log: Logger,
): Promise<
  Pick<
    LocalBinaries,
    'binDir' | 'kubelet' | 'kubeApiserver' | 'kubectl' | 'kubeControllerManager' | 'kubeScheduler' | 'version'
  >
> {
  if (spec.binDir) {
    // A development build (`go build` without version ldflags) reports v0.0.0-master; take the
    // spec's version on trust there rather than refusing the only binaries the user has.
    const kubelet = join(spec.binDir, 'kubelet');
    const reported = await reportedVersion(kubelet, 'kubelet').catch(() => undefined);
    if (reported?.startsWith('v0.0.0')) {
      log.warn(`${kubelet} is an unstamped build (${reported}); treating it as ${spec.kubeVersion}`);
      const b = (n: string) => join(spec.binDir!, n);
      return {
        binDir: spec.binDir,
        kubelet,
        kubeApiserver: b('kube-apiserver'),
        kubectl: b('kubectl'),
        kubeControllerManager: b('kube-controller-manager'),
        kubeScheduler: b('kube-scheduler'),
        version: spec.kubeVersion,
      };
    }
  }
  const k = await resolveKubeBinaries({
    version: spec.kubeVersion,
    ...(spec.binDir ? { dir: spec.binDir } : {}),
    progress,
    log,
  });
  return {
    binDir: k.dir,
    kubelet: k.kubelet,
    kubeApiserver: k.kubeApiserver,
    kubectl: k.kubectl,
    kubeControllerManager: k.kubeControllerManager,
    kubeScheduler: k.kubeScheduler,
    version: k.version,
  };
}
