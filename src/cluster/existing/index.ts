// The existing provider: any cluster reachable through a kubeconfig. It starts
// nothing and stops nothing; it cannot reconfigure or restart the kubelet or
// install plugins, so suites that need that skip (or fail under CI=true).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import { ConfigError, PrerequisiteError } from '../../core/errors.ts';
import { silentProgress, type Progress } from '../../core/progress.ts';
import { stateDir } from '../../core/paths.ts';
import { kubeApi } from '../api.ts';
import { which } from '../local/binaries.ts';
import type { Availability, Capabilities, Environment, EnvironmentProvider, EnvironmentStatus } from '../provider.ts';

export function existingProvider(opts: { env?: NodeJS.ProcessEnv; kubeconfig?: string } = {}): EnvironmentProvider {
  const env = opts.env ?? process.env;
  const root = (name: string) => join(stateDir(env), 'env', name);
  const kubectlPath = async (spec?: EnvironmentSpec) =>
    (spec?.binDir ? join(spec.binDir, 'kubectl') : undefined) ?? (await which('kubectl', env.PATH));

  return {
    name: 'existing',
    async isAvailable(): Promise<Availability> {
      if (!opts.kubeconfig && !env.CREDPROV_KUBECONFIG)
        return { ok: false, reason: 'no kubeconfig given (existing.kubeconfig or CREDPROV_KUBECONFIG)' };
      if (!(await kubectlPath())) return { ok: false, reason: 'kubectl not found on PATH' };
      return { ok: true };
    },
    capabilities(): Capabilities {
      return {
        restartKubelet: false,
        swapKubeletBinary: false,
        installPlugins: false,
        hostRegistries: false,
        hostContainerd: false,
        kubeletFiles: false,
        clusterCA: false,
        apiserverAuthn: false,
        pluginsReachHost: false,
        secondNode: false,
      };
    },
    async up(spec: EnvironmentSpec, progress: Progress = silentProgress): Promise<Environment> {
      const kubeconfig = spec.existing?.kubeconfig ?? opts.kubeconfig;
      if (!kubeconfig)
        throw new ConfigError("provider 'existing' needs a kubeconfig", {
          problems: [{ field: 'existing.kubeconfig', message: 'required' }],
        });
      // The harness talks to the cluster through the API client; kubectl is for the suites that use or test it (exec plugins).
      const k = await kubectlPath(spec);
      if (!k) throw new PrerequisiteError('kubectl not found', { hint: 'put kubectl on PATH or set binDir' });
      const end = progress.start(`check cluster from ${kubeconfig}`);
      try {
        const api = await kubeApi({ kubeconfig });
        await api.raw('/readyz', 20_000);
        const nodes = await api.core.listNode();
        const ready = nodes.items.find((n) =>
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        if (!ready) throw new PrerequisiteError('the cluster has no Ready node', { hint: 'check `kubectl get nodes`' });
        end(true);
        const dir = root(spec.name);
        const environment: Environment = {
          name: spec.name,
          provider: 'existing',
          spec,
          kubeVersion: ready.status?.nodeInfo?.kubeletVersion ?? 'unknown',
          kubeconfig,
          binDir: spec.binDir ?? '',
          kubectl: k,
          nodeName: ready.metadata?.name ?? '',
          stateDir: dir,
          logsDir: join(dir, 'logs'),
          startedAt: new Date().toISOString(),
        };
        await mkdir(dir, { recursive: true });
        await writeFile(join(dir, 'env.json'), `${JSON.stringify(environment, null, 2)}\n`);
        return environment;
      } catch (err) {
        end(false);
        throw err;
      }
    },
    async restartKubelet(): Promise<Environment> {
      throw new PrerequisiteError("the 'existing' provider cannot restart the kubelet", {
        hint: 'use the local or kind provider for suites that reconfigure the kubelet',
      });
    },
    async status(e: Environment): Promise<EnvironmentStatus> {
      const ok = await kubeApi(e)
        .then((api) => api.raw('/readyz', 10_000))
        .then(
          () => true,
          () => false,
        );
      return { ready: ok, components: [{ name: 'kube-apiserver', running: ok }] };
    },
    async collectLogs(): Promise<void> {
      // Nothing of ours runs there; the cluster's logs belong to its operator.
    },
    async down(e: Environment | string): Promise<void> {
      // Only our record goes; the cluster is not ours to stop.
      await rm(root(typeof e === 'string' ? e : e.name), { recursive: true, force: true });
    },
  };
}
