// The kind provider: one kind cluster per environment spec, created by the
// unmodified kind CLI on a Docker engine (engine.ts), from credprov's offline
// node image unless the spec names one (kindest/node on an ordinary runner).
// Plugins, the provider config and containerd's certs.d are bind-mounted from
// the environment's state dir into every node, so restartKubelet rewrites them
// in place and registry routes reach every node while the cluster runs.
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import { CommandError, CredprovError, PrerequisiteError, wrap } from '../../core/errors.ts';
import { noopLogger, type Logger } from '../../core/logger.ts';
import { cacheDir, stateDir } from '../../core/paths.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';
import { behaviourFor } from '../../versions/table.ts';
import { DEFAULT_KUBE_VERSION } from '../binaries/versions.ts';
import { resolveKubeBinaries } from '../binaries/resolve.ts';
import type {
  Availability,
  Capabilities,
  Endpoint,
  Environment,
  EnvironmentProvider,
  EnvironmentStatus,
  KubeletChange,
  NodeHostname,
  RegistryRoute,
  RegistryRouteHandle,
} from '../provider.ts';
import { mapNodeHostnames } from './node-hostnames.ts';
import { availabilityOf, probeKind } from './availability.ts';
import { kindClusterConfig, kindConfigYaml, kubeletExtraArgs } from './config.ts';
import { resolveEngine, type Engine } from './engine.ts';
import { afterLastCluster, noteLibModules } from './last-cluster.ts';
import { kubeletKubeconfigFor } from './kubelet-kubeconfig.ts';
import { ensureNodeImage } from './node-image/ensure.ts';
import { writeNodeFiles } from './node-files.ts';
import { restartNodeKubelet, specAfterKubeletChange } from './node-kubelet.ts';
import { KindRegistryRoutes } from './registry-route.ts';
import { execaRunner, must, type Runner } from './tools.ts';
import { ensureKind, locateKind } from './builds/kind-cli.ts';

export interface KindProviderOptions {
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  kubectl?: string;
  /** Test seams: the docker/kind runner, the engine, the node image and the kube binaries. */
  run?: Runner;
  engine?: Engine;
  nodeImage?: (kubeVersion: string, progress: Progress) => Promise<string>;
  kubeBinaries?: (
    kubeVersion: string,
    progress: Progress,
  ) => Promise<{ version: string; dir: string; kubectl: string }>;
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
  private readonly routes = new Map<string, KindRegistryRoutes>();
  private dockerHost: string | undefined;
  private workers = 0;

  constructor(opts: KindProviderOptions) {
    this.opts = opts;
    this.log = (opts.log ?? noopLogger).child('kind');
    this.env = opts.env ?? process.env;
    this.run =
      opts.run ??
      execaRunner(
        this.log,
        () => locateKind(this.env),
        (): Record<string, string> => (this.dockerHost ? { DOCKER_HOST: this.dockerHost } : {}),
      );
  }

  /** Checks for the default kube version; up() checks again for the spec's. */
  isAvailable(kubeVersion = this.env.CREDPROV_KUBE_VERSION ?? DEFAULT_KUBE_VERSION): Promise<Availability> {
    let p = this.availability.get(kubeVersion);
    if (!p) {
      p = this.engineHost(false)
        .then(() =>
          probeKind(this.run, kubeVersion, {
            env: this.env,
            ...(this.env.CREDPROV_KIND_NODE_IMAGE ? { imageOverride: this.env.CREDPROV_KIND_NODE_IMAGE } : {}),
          }),
        )
        .then(availabilityOf);
      this.availability.set(kubeVersion, p);
    }
    return p;
  }

  capabilities(env?: Environment): Capabilities {
    return {
      restartKubelet: true,
      swapKubeletBinary: false,
      installPlugins: true,
      hostRegistries: true,
      hostContainerd: false,
      kubeletFiles: false,
      clusterCA: false,
      apiserverAuthn: false,
      pluginsReachHost: true,
      secondNode: (env?.nodes?.length ?? 1 + this.workers) > 1,
    };
  }

  /** The engine's DOCKER_HOST, once found (or started, when `start`). */
  private async engineHost(start: boolean, progress?: Progress): Promise<string | undefined> {
    if (this.dockerHost) return this.dockerHost;
    if (this.opts.engine) return (this.dockerHost = this.opts.engine.host);
    const engine = await resolveEngine({
      env: this.env,
      start,
      ...(progress ? { onProgress: (l: string) => progress.note(l) } : {}),
    });
    this.dockerHost = engine?.host;
    return this.dockerHost;
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
    const root = this.root(spec.name);
    const name = clusterName(spec.name);
    this.workers = spec.kindCluster?.workers ?? 0;
    await step(progress, 'Docker engine for kind', () => this.engineHost(true, progress));
    if (!this.opts.run && !(await locateKind(this.env)))
      await step(progress, 'kind CLI', () => ensureKind({ cacheDir: cacheDir(this.env), progress, log: this.log }));
    const nodeImage = spec.kindCluster?.nodeImage ?? (await this.nodeImage(spec.kubeVersion, progress));
    await this.removeCluster(spec.name).catch(() => undefined);
    await mkdir(join(root, 'logs'), { recursive: true, mode: 0o700 });
    await noteLibModules(this.env);
    try {
      const inputs = await step(progress, 'write plugins, provider config, containerd certs.d', () =>
        writeNodeFiles({ spec, root, cluster: name, nodeImage, workers: this.workers, env: this.env }),
      );
      const configFile = join(root, 'kind-config.yaml');
      await writeFile(configFile, kindConfigYaml(kindClusterConfig(spec, inputs)));
      const kubeconfig = join(root, 'kubeconfig');
      await step(progress, `kind create cluster ${name} (${1 + this.workers} node${this.workers ? 's' : ''})`, () =>
        must(
          this.run,
          `create kind cluster ${name}`,
          'kind',
          ['create', 'cluster', '--name', name, '--config', configFile, '--kubeconfig', kubeconfig, '--wait', '120s'],
          { timeoutMs: 900_000 },
        ),
      );
      const nodes = await this.nodesOf(name);
      const sandboxImage = await this.sandboxImageOf(nodes[0]!);
      const kube = this.opts.kubeBinaries
        ? await this.opts.kubeBinaries(spec.kubeVersion, progress)
        : await resolveKubeBinaries({ version: spec.kubeVersion, cacheDir: cacheDir(this.env), progress });
      const env: Environment = {
        name: spec.name,
        provider: 'kind',
        spec,
        kubeVersion: kube.version,
        kubeconfig,
        binDir: kube.dir,
        kubectl: this.opts.kubectl ?? kube.kubectl,
        nodeName: nodes[0]!,
        nodes,
        stateDir: root,
        logsDir: join(root, 'logs'),
        startedAt: new Date().toISOString(),
        pluginBinDir: inputs.pluginBinDir,
        ...(spec.credentialProvider ? { credentialProviderConfig: inputs.providerConfigRoot } : {}),
        ...(sandboxImage ? { sandboxImage } : {}),
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

  /** credprov's own node image for this version, built (or found cached) offline. */
  private async nodeImage(kubeVersion: string, progress: Progress): Promise<string> {
    if (this.opts.nodeImage) return this.opts.nodeImage(kubeVersion, progress);
    const built = await ensureNodeImage({
      kubeVersion,
      run: this.run,
      progress,
      cacheDir: cacheDir(this.env),
      log: this.log,
    });
    return built.ref;
  }

  /** The pause image the node's containerd holds (pinned in every kind node image): a record-free image every pod has. */
  private async sandboxImageOf(node: string): Promise<string | undefined> {
    const r = await this.run('docker', ['exec', node, 'ctr', '--namespace', 'k8s.io', 'images', 'ls', '-q']);
    return r.exitCode === 0
      ? r.stdout
          .split('\n')
          .map((l) => l.trim())
          .find((ref) => /\/pause:[^@]+$/.test(ref))
      : undefined;
  }

  /** The cluster's node containers, control plane first. */
  private async nodesOf(cluster: string): Promise<string[]> {
    const out = await must(this.run, `list the nodes of ${cluster}`, 'kind', ['get', 'nodes', '--name', cluster]);
    const nodes = out
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    return nodes.sort(
      (a, b) => Number(!a.endsWith('-control-plane')) - Number(!b.endsWith('-control-plane')) || a.localeCompare(b),
    );
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
    // change.exitExpected needs nothing here: it tells a provider's component watch (watchComponents) to leave an
    // exiting kubelet alone, and kind has no such watch (a node's kubelet is systemd's, Restart=always). As on the
    // local provider, it does not excuse a kubelet that exits before it answers /healthz: the restart fails.
    await this.engineHost(false);
    const spec = specAfterKubeletChange(env.spec, change);
    const inputs = await step(progress, 'rewrite plugins and provider config', () =>
      // The node image only matters to a cluster config, which a restart does not write.
      writeNodeFiles({
        spec,
        root: env.stateDir,
        cluster: clusterName(env.name),
        nodeImage: env.spec.kindCluster?.nodeImage ?? '',
        workers: (env.nodes?.length ?? 1) - 1,
        env: this.env,
      }),
    );
    const flags = kubeletExtraArgs(spec, inputs);
    await step(progress, `restart the kubelet of ${(env.nodes ?? [env.nodeName]).join(', ')}`, () =>
      Promise.all((env.nodes ?? [env.nodeName]).map((node) => restartNodeKubelet(this.run, node, spec, flags))),
    );
    const updated = { ...env, spec };
    await writeFile(join(env.stateDir, 'env.json'), `${JSON.stringify(updated, null, 2)}\n`);
    return updated;
  }

  async kubeletKubeconfig(env: Environment, node: string): Promise<string> {
    if (!(env.nodes ?? [env.nodeName]).includes(node))
      throw new CredprovError(
        `environment ${env.name} has no node ${node} (nodes: ${(env.nodes ?? [env.nodeName]).join(', ')})`,
      );
    await this.engineHost(false);
    const pem = await must(this.run, `read ${node}'s kubelet client certificate`, 'docker', [
      'exec',
      node,
      'cat',
      '/var/lib/kubelet/pki/kubelet-client-current.pem',
    ]);
    const file = join(env.stateDir, `kubelet-${node}.kubeconfig`);
    await writeFile(file, kubeletKubeconfigFor(await readFile(env.kubeconfig, 'utf8'), node, pem), { mode: 0o600 });
    return file;
  }

  async routeRegistry(env: Environment, route: RegistryRoute): Promise<RegistryRouteHandle> {
    return (await this.routesOf(env)).add(route);
  }

  async reachFromNodes(
    env: Environment,
    endpoints: Endpoint[],
    names: NodeHostname[] = [],
  ): Promise<RegistryRouteHandle> {
    const reach = await (await this.routesOf(env)).reach(endpoints);
    const mapped = await mapNodeHostnames(this.run, env.nodes ?? [env.nodeName], names).catch(async (err: unknown) => {
      await reach.stop();
      throw err;
    });
    return {
      stop: async () => {
        await mapped.stop();
        await reach.stop();
      },
    };
  }

  private async routesOf(env: Environment): Promise<KindRegistryRoutes> {
    await this.engineHost(false);
    let routes = this.routes.get(env.name);
    if (!routes) {
      routes = new KindRegistryRoutes(this.run, join(env.stateDir, 'certs.d'), async () => env.nodes ?? [env.nodeName]);
      this.routes.set(env.name, routes);
    }
    return routes;
  }

  async status(env: Environment): Promise<EnvironmentStatus> {
    if (!(await this.engineHost(false)))
      return { ready: false, components: [{ name: 'docker engine', running: false }] };
    const components: EnvironmentStatus['components'] = [];
    for (const node of env.nodes ?? [env.nodeName]) {
      const r = await this.run('docker', ['inspect', '--format', '{{.State.Running}} {{.State.Pid}}', node]);
      const [running, pid] = r.stdout.trim().split(' ');
      const up = r.exitCode === 0 && running === 'true';
      components.push({ name: node, running: up, ...(pid && pid !== '0' ? { pid: Number(pid) } : {}) });
      const k = up ? await this.run('docker', ['exec', node, 'systemctl', 'is-active', 'kubelet']) : undefined;
      components.push({
        name: `kubelet (${node})`,
        running: k?.stdout.trim() === 'active',
        detail: k?.stdout.trim() ?? 'node down',
      });
    }
    const readyz = await this.run(env.kubectl, ['--kubeconfig', env.kubeconfig, 'get', '--raw', '/readyz'], {
      timeoutMs: 15_000,
    });
    components.push({
      name: 'kube-apiserver',
      running: readyz.exitCode === 0,
      detail: (readyz.exitCode === 0 ? readyz.stdout : readyz.stderr).trim().split('\n')[0] ?? '',
    });
    return { ready: components.every((c) => c.running), components };
  }

  async collectLogs(env: Environment, dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    await this.engineHost(false);
    const r = await this.run('kind', ['export', 'logs', dir, '--name', clusterName(env.name)]);
    if (r.exitCode === 0) return;
    // kind writes every log it can and then fails on the first that failed: on credprov's node image, which
    // has no crictl, that is `crictl images` (images.log). The journals and /var/log are there all the same.
    const exported = (await readdir(dir, { recursive: true }).catch(() => [] as string[])).some((f) =>
      String(f).endsWith('kubelet.log'),
    );
    if (!exported)
      throw new CommandError(`failed to export kind logs (kind exit ${r.exitCode})`, {
        argv: ['kind', 'export', 'logs', dir],
        exitCode: r.exitCode,
        output: `${r.stdout}\n${r.stderr}`,
      });
    await writeFile(join(dir, 'kind-export-errors.txt'), r.stderr);
  }

  async down(env: Environment | string, progress: Progress = silentProgress): Promise<void> {
    const engine = await this.removeCluster(typeof env === 'string' ? env : env.name, progress);
    if (engine) await afterLastCluster(this.run, engine.kind, this.env, progress);
  }

  /** Deletes the cluster and its state; returns the engine it ran on (none answering: nothing to delete). */
  private async removeCluster(name: string, progress: Progress = silentProgress): Promise<Engine | undefined> {
    const cluster = clusterName(name);
    await this.routes.get(name)?.stopAll();
    this.routes.delete(name);
    const engine = this.opts.engine ?? (await resolveEngine({ env: this.env }));
    if (engine) {
      this.dockerHost = engine.host;
      const list = await this.run('kind', ['get', 'clusters']);
      const clusters = list.exitCode === 0 ? list.stdout.split('\n').map((s) => s.trim()) : [];
      if (clusters.includes(cluster))
        await step(progress, `kind delete cluster ${cluster}`, () =>
          must(this.run, `delete kind cluster ${cluster}`, 'kind', ['delete', 'cluster', '--name', cluster]),
        );
    }
    await rm(this.root(name), { recursive: true, force: true });
    return engine;
  }
}
