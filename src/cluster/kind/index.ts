// The kind provider: one kind cluster per environment spec, driven through the
// kind and docker CLIs. Plugins and the provider config are bind-mounted from
// the environment's state dir, so restartKubelet can rewrite them in place and
// restart the kubelet inside the node.
import { chmod, copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import { PrerequisiteError, wrap } from '../../core/errors.ts';
import { noopLogger, type Logger } from '../../core/logger.ts';
import { stateDir } from '../../core/paths.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';
import { behaviourFor } from '../../versions/table.ts';
import { DEFAULT_KUBE_VERSION } from '../binaries/versions.ts';
import type {
  Availability,
  Capabilities,
  Environment,
  EnvironmentProvider,
  EnvironmentStatus,
  KubeletChange,
} from '../provider.ts';
import { availabilityOf, probeKind } from './availability.ts';
import { hostsToml, kindClusterConfig, kindConfigYaml, type KindInputs, type KindRegistry } from './config.ts';
import { nodeImageFor } from './images.ts';
import { execaRunner, must, type Runner } from './tools.ts';

export interface KindProviderOptions {
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  /** A node image to use instead of kindest/node:<kubeVersion>. */
  nodeImage?: string;
  /** Registries the nodes must reach under their own names (host:port), with their CA for TLS. */
  registries?: KindRegistry[];
  workers?: number;
  kubectl?: string;
  /** Test seam. */
  run?: Runner;
}

export function kindProvider(opts: KindProviderOptions = {}): EnvironmentProvider {
  return new KindProvider(opts);
}

/** kind names clusters [a-z0-9-]; credprov's prefix keeps `down` away from clusters it did not create. */
export function clusterName(envName: string): string {
  return `credprov-${envName.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`.slice(0, 40);
}

class KindProvider implements EnvironmentProvider {
  readonly name = 'kind' as const;
  private readonly log: Logger;
  private readonly env: NodeJS.ProcessEnv;
  private readonly run: Runner;
  private readonly opts: KindProviderOptions;
  private readonly availability = new Map<string, Promise<Availability>>();

  constructor(opts: KindProviderOptions) {
    this.opts = opts;
    this.log = (opts.log ?? noopLogger).child('kind');
    this.env = opts.env ?? process.env;
    this.run = opts.run ?? execaRunner(this.log);
  }

  /** Checks for the default kube version; up() checks again for the spec's. */
  isAvailable(kubeVersion = this.env.CREDPROV_KUBE_VERSION ?? DEFAULT_KUBE_VERSION): Promise<Availability> {
    let p = this.availability.get(kubeVersion);
    if (!p) {
      p = probeKind(this.run, kubeVersion, this.opts.nodeImage).then(availabilityOf);
      this.availability.set(kubeVersion, p);
    }
    return p;
  }

  capabilities(): Capabilities {
    // Registries on the host's loopback are not the nodes' loopback.
    return {
      restartKubelet: true,
      swapKubeletBinary: false,
      installPlugins: true,
      hostRegistries: false,
      hostContainerd: false,
      kubeletFiles: false,
      clusterCA: false,
      apiserverAuthn: false,
      secondNode: (this.opts.workers ?? 0) > 0,
    };
  }

  private root(name: string): string {
    return join(stateDir(this.env), 'env', name);
  }

  async up(
    spec: EnvironmentSpec,
    progress: Progress = silentProgress,
    upOpts: { keep?: boolean } = {},
  ): Promise<Environment> {
    behaviourFor(spec.kubeVersion);
    const available = await this.isAvailable(spec.kubeVersion);
    if (!available.ok)
      throw new PrerequisiteError(`the kind provider cannot run here: ${available.reason}`, {
        hint: "run 'credprov doctor' to see what each provider needs",
      });
    const root = this.root(spec.name);
    const name = clusterName(spec.name);
    await this.down(spec.name).catch(() => undefined);
    await mkdir(join(root, 'logs'), { recursive: true, mode: 0o700 });
    try {
      const inputs = await step(progress, 'write plugins, provider config, registry hosts', () =>
        this.writeInputs(spec, root, name),
      );
      const configFile = join(root, 'kind-config.yaml');
      await writeFile(configFile, kindConfigYaml(kindClusterConfig(spec, inputs)));
      const kubeconfig = join(root, 'kubeconfig');
      await step(progress, `kind create cluster ${name}`, () =>
        must(
          this.run,
          `create kind cluster ${name}`,
          'kind',
          ['create', 'cluster', '--name', name, '--config', configFile, '--kubeconfig', kubeconfig, '--wait', '120s'],
          { timeoutMs: 900_000 },
        ),
      );
      const env: Environment = {
        name: spec.name,
        provider: 'kind',
        spec,
        kubeVersion: spec.kubeVersion,
        kubeconfig,
        binDir: root,
        kubectl: this.opts.kubectl ?? 'kubectl',
        nodeName: `${name}-control-plane`,
        stateDir: root,
        logsDir: join(root, 'logs'),
        startedAt: new Date().toISOString(),
        ...(inputs.pluginBinDir ? { pluginBinDir: inputs.pluginBinDir } : {}),
        ...(inputs.providerConfig ? { credentialProviderConfig: inputs.providerConfig.hostPath } : {}),
      };
      await writeFile(join(root, 'env.json'), `${JSON.stringify(env, null, 2)}\n`);
      return env;
    } catch (err) {
      await this.collectLogs({ name: spec.name } as Environment, join(root, 'logs')).catch(() => undefined);
      if (upOpts.keep) progress.note(`keeping the failed kind cluster ${name} (credprov down to remove it)`);
      else
        await this.down(spec.name).catch((e: unknown) =>
          this.log.warn(`cleanup after failed up: ${(e as Error).message}`),
        );
      throw wrap(err, 'kind up');
    }
  }

  /** Files the nodes mount: they live in the state dir so a restart can rewrite them. */
  private async writeInputs(spec: EnvironmentSpec, root: string, name: string): Promise<KindInputs> {
    const inputs: KindInputs = {
      name,
      nodeImage: nodeImageFor(spec.kubeVersion, this.opts.nodeImage),
      workers: this.opts.workers ?? 0,
    };
    const cp = spec.credentialProvider;
    if (cp) {
      inputs.pluginBinDir = join(root, 'plugins');
      await mkdir(inputs.pluginBinDir, { recursive: true });
      for (const [plugin, source] of Object.entries(cp.plugins)) {
        await copyFile(source, join(inputs.pluginBinDir, plugin));
        await chmod(join(inputs.pluginBinDir, plugin), 0o755);
      }
      if (cp.configFile) {
        inputs.providerConfig = { hostPath: cp.configFile, isDirectory: !/\.(ya?ml|json)$/.test(cp.configFile) };
      } else if (cp.config) {
        const file = join(root, 'credential-provider-config.yaml');
        await writeFile(file, stringify(cp.config));
        inputs.providerConfig = { hostPath: file, isDirectory: false };
      }
    }
    const registries = this.opts.registries ?? [];
    if (registries.length > 0) {
      inputs.certsDir = join(root, 'certs.d');
      inputs.registries = registries;
      for (const r of registries) {
        const dir = join(inputs.certsDir, r.host);
        await mkdir(dir, { recursive: true });
        await writeFile(join(dir, 'hosts.toml'), hostsToml(r));
        if (r.tls && r.caFile) await copyFile(r.caFile, join(dir, 'ca.crt'));
      }
    }
    return inputs;
  }

  async restartKubelet(
    env: Environment,
    change: KubeletChange,
    progress: Progress = silentProgress,
  ): Promise<Environment> {
    if (change.kubeletBinary)
      throw new PrerequisiteError('the kind provider cannot swap the kubelet binary inside a node image', {
        hint: 'use the local provider for version skew',
      });
    const spec = { ...env.spec, kubelet: { ...env.spec.kubelet, ...change.kubelet } } as EnvironmentSpec;
    if (change.featureGates)
      spec.featureGates = { ...spec.featureGates, kubelet: { ...spec.featureGates.kubelet, ...change.featureGates } };
    if (change.credentialProvider === null) delete spec.credentialProvider;
    else if (change.credentialProvider) spec.credentialProvider = change.credentialProvider;
    const node = env.nodeName;
    await step(progress, 'rewrite plugins and provider config', () =>
      this.writeInputs(spec, env.stateDir, clusterName(env.name)),
    );
    await step(progress, 'update kubelet config in the node', async () => {
      const current = parse(
        await must(this.run, 'read kubelet config', 'docker', ['exec', node, 'cat', '/var/lib/kubelet/config.yaml']),
      ) as Record<string, unknown>;
      const next = {
        ...current,
        ...spec.kubelet.config,
        featureGates: { ...(current.featureGates as object | undefined), ...spec.featureGates.kubelet },
      };
      await must(
        this.run,
        'write kubelet config',
        'docker',
        ['exec', '-i', node, 'sh', '-c', 'cat > /var/lib/kubelet/config.yaml'],
        { input: stringify(next) },
      );
    });
    await step(progress, 'restart kubelet', () =>
      must(this.run, 'restart kubelet', 'docker', ['exec', node, 'systemctl', 'restart', 'kubelet']),
    );
    const updated = { ...env, spec };
    await writeFile(join(env.stateDir, 'env.json'), `${JSON.stringify(updated, null, 2)}\n`);
    return updated;
  }

  async status(env: Environment): Promise<EnvironmentStatus> {
    const r = await this.run('docker', ['inspect', '--format', '{{.State.Running}} {{.State.Pid}}', env.nodeName]);
    const [running, pid] = r.stdout.trim().split(' ');
    const node = {
      name: env.nodeName,
      running: r.exitCode === 0 && running === 'true',
      ...(pid && pid !== '0' ? { pid: Number(pid) } : {}),
    };
    let kubelet = { name: 'kubelet', running: false } as EnvironmentStatus['components'][number];
    if (node.running) {
      const k = await this.run('docker', ['exec', env.nodeName, 'systemctl', 'is-active', 'kubelet']);
      kubelet = { name: 'kubelet', running: k.stdout.trim() === 'active', detail: k.stdout.trim() };
    }
    return { ready: node.running && kubelet.running, components: [node, kubelet] };
  }

  async collectLogs(env: Environment, dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    await must(this.run, 'export kind logs', 'kind', ['export', 'logs', dir, '--name', clusterName(env.name)]);
  }

  async down(env: Environment | string): Promise<void> {
    const name = typeof env === 'string' ? env : env.name;
    const cluster = clusterName(name);
    const list = await this.run('kind', ['get', 'clusters']);
    if (
      list.exitCode === 0 &&
      list.stdout
        .split('\n')
        .map((s) => s.trim())
        .includes(cluster)
    ) {
      await must(this.run, `delete kind cluster ${cluster}`, 'kind', ['delete', 'cluster', '--name', cluster]);
    }
    await rm(this.root(name), { recursive: true, force: true });
  }
}
