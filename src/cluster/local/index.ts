// The local provider: a real cluster as processes on this host (etcd,
// kube-apiserver, controller-manager, scheduler, and two nodes, each a kubelet
// with its own containerd + runc + CNI), the way upstream node e2e runs the
// kubelet. up() is lists of named steps: the host's, then the control plane's
// beside each node's containerd, then each node's kubelet; restartKubelet()
// reruns the first node's kubelet steps.
import { access, copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { trustForContainerd } from '../../engine/containerd-hosts.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { KEPT_FAILED_RUNS, pruneOldest } from './failed-runs.ts';
import { join } from 'node:path';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import { CredprovError, PrerequisiteError, wrap } from '../../core/errors.ts';
import { stateDir, timestampDirName } from '../../core/paths.ts';
import { noopLogger, type Logger } from '../../core/logger.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';
import { behaviourFor } from '../../versions/table.ts';
import {
  type RegistryRoute,
  type RegistryRouteHandle,
  type Availability,
  type Capabilities,
  type ComponentDeath,
  type Endpoint,
  type Environment,
  type EnvironmentProvider,
  type EnvironmentStatus,
  type KubeletChange,
  mirrorUrl,
} from '../provider.ts';
import { pkiPaths, type Pki } from './certs.ts';
import {
  loadState,
  saveState,
  type LocalNode,
  type LocalState,
  type SandboxImage,
  type Step,
  type StepContext,
} from './context.ts';
import { firstNode, nodesOf, secondNodeName } from './nodes.ts';
import { mountData } from './steps/mountData.ts';
import { hostBinaries, kubeletFor, resolveLocalBinaries } from './binaries.ts';
import { reportedVersion } from '../binaries/probe.ts';
import { fatalLine, recordedPid, stopDaemon } from './daemon.ts';
import { layoutFor, type Layout } from './layout.ts';
import { freePorts } from './net.ts';
import { hostIdentity } from './identity.ts';
import { defaultSandboxImage } from './sandbox-image.ts';
import { teardown } from './teardown.ts';
import { mapHostnamesHere, type NodeHostname } from '../node-hostnames.ts';
import { findLeftovers, type LeftoverKind } from './leftovers.ts';
import { makePkiStep } from './steps/makePki.ts';
import { startEtcd } from './steps/startEtcd.ts';
import { startApiServer } from './steps/startApiServer.ts';
import { bootstrapObjects } from './steps/bootstrapObjects.ts';
import { CONTROLLERS, startControllers } from './steps/startControllers.ts';
import { createCgroupRoot } from './steps/createCgroupRoot.ts';
import { createNodeAddress } from './steps/createNodeAddress.ts';
import { startContainerd } from './steps/startContainerd.ts';
import { importSandboxImage } from './steps/importSandboxImage.ts';
import { installPlugins } from './steps/installPlugins.ts';
import { writeKubeletConfig } from './steps/writeKubeletConfig.ts';
import { startKubelet } from './steps/startKubelet.ts';
import { waitForNodeReady } from './steps/waitForNodeReady.ts';

/** A node's kubelet steps: restartKubelet reruns exactly these, on the first node. */
const KUBELET_STEPS: Step[] = [
  installPlugins, // plugins into the bin dir, inline provider config to a file
  writeKubeletConfig, // base KubeletConfiguration + spec fragments
  startKubelet, // the kubelet, healthz answering
  waitForNodeReady, // registered and Ready (runtime + CNI)
];

/** What the environment claims on the host, before anything starts. */
const HOST_STEPS: Step[] = [
  mountData, // data/ on a tmpfs of its own: down unmounts it instead of deleting files
  createCgroupRoot, // /credprov-<name> in every cgroup hierarchy: pods of two environments never mix
  createNodeAddress, // an empty bridge link with the nodes' IPs (the kubelet refuses loopback)
];

/** The control plane, one step after another. */
const CONTROL_PLANE_STEPS: Step[] = [
  makePkiStep, // CA, serving and client certs, SA keys, kubeconfigs
  startEtcd,
  startApiServer, // Node,RBAC + NodeRestriction, SA issuer, feature gates
  startControllers, // kube-controller-manager and kube-scheduler, started together
  bootstrapObjects, // default SA and kube-root-ca.crt at once (the controllers would race the first pod)
];

/** A node's container runtime: needs nothing of the control plane, so it starts beside it. */
const RUNTIME_STEPS: Step[] = [
  startContainerd, // own socket/root, cgroupfs, certs.d config_path, CNI conflist
  importSandboxImage, // pause image imported and pinned
];

/** Every daemon of an environment with `state`, in start order. */
function componentsOf(state: LocalState | undefined): string[] {
  return [
    'etcd',
    'kube-apiserver',
    ...CONTROLLERS,
    'containerd',
    'kubelet',
    ...(state?.secondNode ? ['containerd-b', 'kubelet-b'] : []),
  ];
}
/** How often a run checks that the components still live. */
const WATCH_INTERVAL_MS = 1000;
/** What an environment leaves on the host outside its state dir, found from its name alone. */
const HOST_KINDS: LeftoverKind[] = ['processes', 'mounts', 'netns', 'links', 'cgroups', 'cniState'];

/** Environments whose kubelet a restart of ours stopped and has not (yet, or successfully) started again: watchComponents leaves it alone. */
const kubeletsUnwatched = new Set<string>();

/** Teardowns in progress in this process, by environment name. */
const teardowns = new Map<string, Promise<void>>();

/**
 * `up`s and kubelet restarts in progress in this process, by environment
 * name. A `down` meanwhile (Ctrl-C) aborts one and waits for it to stop
 * between steps: tearing down under a running step let that step start a
 * daemon, or recreate the state dir, after the teardown had passed.
 */
const bringUps = new Map<string, { abort: AbortController; settled: Promise<unknown> }>();

function interruptible<T>(name: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (bringUps.has(name))
    return Promise.reject(new CredprovError(`local environment '${name}' is already being started by this process`));
  const abort = new AbortController();
  const done = work(abort.signal);
  bringUps.set(name, {
    abort,
    settled: done.then(
      () => {},
      () => {},
    ),
  });
  return done.finally(() => bringUps.delete(name));
}

export interface LocalProviderOptions {
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  /** Test seam: where the pause image comes from. */
  sandboxImage?: SandboxImage;
}

export function localProvider(opts: LocalProviderOptions = {}): EnvironmentProvider {
  return new LocalProvider(opts);
}

class LocalProvider implements EnvironmentProvider {
  readonly name = 'local' as const;
  private readonly log: Logger;
  private readonly env: NodeJS.ProcessEnv;
  private readonly sandboxImage: SandboxImage | undefined;
  private availability: Promise<Availability> | undefined;

  constructor(opts: LocalProviderOptions) {
    this.log = (opts.log ?? noopLogger).child('cluster');
    this.env = opts.env ?? process.env;
    this.sandboxImage = opts.sandboxImage;
  }

  isAvailable(): Promise<Availability> {
    this.availability ??= (async (): Promise<Availability> => {
      if (process.platform !== 'linux')
        return { ok: false, reason: `runs Linux processes; this is ${process.platform}` };
      if (process.getuid?.() !== 0) return { ok: false, reason: 'needs root (mounts, network namespaces, cgroups)' };
      const { missing } = await hostBinaries(this.env);
      if (missing.length > 0) return { ok: false, reason: `missing ${missing.join(', ')}` };
      return { ok: true };
    })();
    return this.availability;
  }

  capabilities(env?: Environment): Capabilities {
    return {
      restartKubelet: true,
      swapKubeletBinary: true,
      installPlugins: true,
      hostRegistries: true,
      hostContainerd: true,
      kubeletFiles: true,
      clusterCA: true,
      apiserverAuthn: true,
      pluginsReachHost: true,
      // Every environment `up` makes has two nodes; one brought up before the second node existed has one.
      secondNode: env ? (env.nodes?.length ?? 1) > 1 : true,
    };
  }

  async up(
    spec: EnvironmentSpec,
    progress: Progress = silentProgress,
    upOpts: { keep?: boolean } = {},
  ): Promise<Environment> {
    kubeletsUnwatched.delete(spec.name);
    return interruptible(spec.name, (signal) => this.bringUp(spec, progress, upOpts, signal));
  }

  private async bringUp(
    spec: EnvironmentSpec,
    progress: Progress,
    upOpts: { keep?: boolean },
    signal: AbortSignal,
  ): Promise<Environment> {
    const available = await this.isAvailable();
    if (!available.ok)
      throw new PrerequisiteError(`the local provider cannot run here: ${available.reason}`, {
        hint: "run 'credprov doctor' to see what each provider needs",
      });
    behaviourFor(spec.kubeVersion);
    const layout = layoutFor(spec.name, this.env);
    // A previous run that crashed leaves processes and mounts behind; clear them first.
    if (await exists(layout.root)) await this.tearDown(spec.name, silentProgress);
    await mkdir(layout.root, { recursive: true, mode: 0o700 });
    await Promise.all(
      [layout.config, layout.logs, layout.pids, layout.certs].map((d) => mkdir(d, { recursive: true })),
    );

    let ctx: StepContext | undefined;
    try {
      const state = await stepOf(progress, 'resolve binaries', async () =>
        newState(spec, await resolveLocalBinaries(spec, progress, this.log, this.env), await this.sandbox()),
      );
      ctx = { ...this.context(state, layout, await this.sandbox()), signal };
      await saveState(layout, state);
      const steps = { ...ctx };
      // One line with the whole bring-up's time (binaries resolved): what the default run's benchmark reads.
      await stepOf(progress, `bring up local environment '${spec.name}'`, () =>
        bringUpSteps(steps, nodesOf(state, layout, steps.pki), progress),
      );
      const env = this.environment(ctx);
      await writeFile(layout.envFile, `${JSON.stringify(env, null, 2)}\n`);
      return env;
    } catch (err) {
      if (signal.aborted) {
        // Interrupted, not failed: the interrupting down() tears down once this returns; no logs to keep.
        throw new CredprovError(`bringing up '${spec.name}' was interrupted`, { cause: err });
      }
      if (upOpts.keep) {
        progress.note(`keeping the failed environment for inspection: ${layout.root} (credprov down to remove it)`);
        throw err;
      }
      // The state dir goes with the environment; the component logs explain the failure, so they stay
      // (and the hint points there, not at the removed state dir).
      const failedRuns = join(stateDir(this.env), 'failed-runs');
      const kept = join(failedRuns, `${spec.name}-${timestampDirName()}`);
      const saved = await this.collectLogs({ name: spec.name } as Environment, kept).then(
        () => true,
        () => false,
      );
      await pruneOldest(failedRuns, KEPT_FAILED_RUNS).catch(() => {});
      await this.tearDown(spec.name, silentProgress).catch((e: unknown) =>
        this.log.warn(`cleanup after failed up: ${(e as Error).message}`),
      );
      if (saved) progress.note(`component logs of the failed start: ${kept}`);
      if (saved && err instanceof CredprovError)
        throw new CredprovError(err.reason, {
          ...(err.detail ? { detail: err.detail } : {}),
          hint: `component logs: ${kept}`,
          cause: err,
          exitCode: err.exitCode,
        });
      throw err;
    }
  }

  async restartKubelet(
    env: Environment,
    change: KubeletChange,
    progress: Progress = silentProgress,
  ): Promise<Environment> {
    kubeletsUnwatched.add(env.name);
    const restarted = await interruptible(env.name, (signal) => this.swapKubelet(env, change, progress, signal));
    if (!change.exitExpected) kubeletsUnwatched.delete(env.name);
    return restarted;
  }

  private async swapKubelet(
    env: Environment,
    change: KubeletChange,
    progress: Progress,
    signal: AbortSignal,
  ): Promise<Environment> {
    const layout = layoutFor(env.name, this.env);
    const state = await loadState(layout);
    if (!state)
      throw new PrerequisiteError(`no local environment '${env.name}' to restart the kubelet of`, {
        hint: 'bring one up with credprov up',
      });
    const spec = applyChange(state.spec, change);
    // Another kubelet.version (skew, downgrade) means another kubelet binary; an explicit binary wins.
    const kubelet = change.kubeletBinary
      ? { kubelet: change.kubeletBinary, kubeletVersion: await reportedVersion(change.kubeletBinary, 'kubelet') }
      : spec.kubelet.version !== state.spec.kubelet.version
        ? await stepOf(progress, 'resolve kubelet', () =>
            kubeletFor(
              spec,
              { kubelet: join(state.binaries.binDir, 'kubelet'), version: state.binaries.version },
              progress,
              this.log,
            ),
          )
        : {};
    const next: LocalState = { ...state, spec, binaries: { ...state.binaries, ...kubelet } };
    await stepOf(progress, 'stop kubelet', () => stopDaemon(layout.pids, 'kubelet'));
    const ctx = { ...this.context(next, layout, await this.sandbox()), signal };
    await runSteps(KUBELET_STEPS, ctx, progress);
    await saveState(layout, next);
    const updated = this.environment(ctx);
    await writeFile(layout.envFile, `${JSON.stringify(updated, null, 2)}\n`);
    return updated;
  }

  async routeRegistry(env: Environment, route: RegistryRoute): Promise<RegistryRouteHandle> {
    if (!env.containerd)
      throw new CredprovError(
        `environment ${env.name} has no containerd config path to route ${route.imageHost} through`,
      );
    const dir = await trustForContainerd(env.containerd.certsDir, route.imageHost, {
      ...(route.caCertPath ? { caCertPath: route.caCertPath } : {}),
      plainHttp: route.scheme === 'http',
      server: `${route.address}:${route.port}`,
      mirrors: (route.mirrors ?? []).map((m) => ({
        url: mirrorUrl(m),
        ...(m.caCertPath ? { caCertPath: m.caCertPath } : {}),
        ...(m.capabilities ? { capabilities: m.capabilities } : {}),
        ...(m.overridePath ? { overridePath: true } : {}),
      })),
    });
    return { stop: () => rm(dir, { recursive: true, force: true }) };
  }

  /** A node's kubelet kubeconfig (system:node:<node>, group system:nodes, a client certificate from the cluster CA). */
  async kubeletKubeconfig(env: Environment, node: string): Promise<string> {
    const layout = layoutFor(env.name, this.env);
    const state = await loadState(layout);
    const nodes = state ? nodesOf(state, layout, pkiPaths(layout.certs)) : [];
    const found = nodes.find((n) => n.name === node);
    if (!found)
      throw new CredprovError(
        `environment ${env.name} has ${nodes.length === 1 ? 'one node' : 'nodes'} ${nodes.map((n) => n.name).join(' and ') || env.nodeName}: there is no kubelet of node ${node} to authenticate as`,
        nodes.length < 2 ? { hint: 'bring the environment up again: credprov up makes two nodes' } : {},
      );
    return found.files.kubeletKubeconfig;
  }

  /** The kubelet and its plugins run on this host: its loopback is theirs. */
  async reachFromNodes(
    _env: Environment,
    _endpoints: Endpoint[],
    names: NodeHostname[] = [],
  ): Promise<RegistryRouteHandle> {
    // The nodes are this host: its loopback is theirs, and so is its hosts file.
    return mapHostnamesHere(names);
  }

  async status(env: Environment): Promise<EnvironmentStatus> {
    const layout = layoutFor(env.name, this.env);
    const components = await Promise.all(
      componentsOf(await loadState(layout)).map(async (name) => {
        const pid = await recordedPid(layout.pids, name);
        return { name, running: pid !== undefined, ...(pid ? { pid } : {}) };
      }),
    );
    return { ready: components.every((c) => c.running), components };
  }

  async watchComponents(env: Environment, signal: AbortSignal): Promise<ComponentDeath> {
    const layout = layoutFor(env.name, this.env);
    const components = componentsOf(await loadState(layout));
    for (;;) {
      await sleep(WATCH_INTERVAL_MS, undefined, { signal });
      for (const name of components) {
        // The kubelet is down on purpose while we restart it (its steps watch it themselves), and after a
        // restart that failed, until the suite restarts it again (skew and downgrade suites expect such failures).
        const unwatched = () => name === 'kubelet' && kubeletsUnwatched.has(env.name);
        if (unwatched()) continue;
        const pid = await recordedPid(layout.pids, name);
        if (pid !== undefined || unwatched()) continue;
        const logFile = join(layout.logs, `${name}.log`);
        const why = fatalLine(await readFile(logFile, 'utf8').catch(() => ''), { lastErrorToo: false });
        return { component: name, ...(why ? { why } : {}), logFile };
      }
    }
  }

  async collectLogs(env: Environment, dir: string): Promise<void> {
    const layout = layoutFor(env.name, this.env);
    await mkdir(dir, { recursive: true });
    const files = await readdir(layout.logs).catch(() => [] as string[]);
    await Promise.all(files.map((f) => copyFile(join(layout.logs, f), join(dir, f))));
  }

  async down(env: Environment | string, progress: Progress = silentProgress): Promise<void> {
    const name = typeof env === 'string' ? env : env.name;
    const bringingUp = bringUps.get(name);
    if (bringingUp) {
      bringingUp.abort.abort(new CredprovError(`interrupted: tearing down '${name}'`));
      await bringingUp.settled;
    }
    return this.tearDown(name, progress);
  }

  private tearDown(name: string, progress: Progress): Promise<void> {
    // A Ctrl-C handler and a failing up() may both tear down at once: the second waits for the first.
    const running = teardowns.get(name);
    if (running) return running;
    const done = this.teardown(name, progress).finally(() => teardowns.delete(name));
    teardowns.set(name, done);
    return done;
  }

  private async teardown(name: string, progress: Progress): Promise<void> {
    const layout = layoutFor(name, this.env);
    let what = `tear down local environment '${name}'`;
    if (!(await exists(layout.root))) {
      // The state dir is gone, but an earlier down may have left what it could not reach then (pods of a killed containerd).
      const left = await findLeftovers(name, { env: this.env });
      if (!HOST_KINDS.some((k) => left[k].length > 0)) return;
      what = `clear what is left of local environment '${name}' (${HOST_KINDS.filter((k) => left[k].length > 0).join(', ')})`;
    }
    const problems = await stepOf(progress, what, async () => teardown(layout, await loadState(layout), this.log));
    for (const p of problems) progress.note(`left behind: ${p}`);
  }

  private async sandbox(): Promise<SandboxImage> {
    return this.sandboxImage ?? defaultSandboxImage();
  }

  private context(state: LocalState, layout: Layout, sandboxImage: SandboxImage): StepContext {
    const pki: Pki = pkiPaths(layout.certs);
    return {
      state,
      layout,
      pki,
      node: firstNode(state, layout, pki),
      log: this.log,
      sandboxImage,
      apiServerUrl: `https://127.0.0.1:${state.ports.apiserver}`,
    };
  }

  private environment(ctx: StepContext): Environment {
    const { state, layout } = ctx;
    const cp = state.spec.credentialProvider;
    return {
      name: state.name,
      provider: 'local',
      spec: state.spec,
      kubeVersion: state.binaries.version,
      kubeletVersion: state.binaries.kubeletVersion ?? state.binaries.version,
      kubeconfig: layout.adminKubeconfig,
      binDir: state.binaries.binDir,
      kubectl: state.binaries.kubectl,
      nodeName: state.spec.kubelet.nodeName,
      nodes: nodesOf(state, layout, ctx.pki).map((n) => n.name),
      stateDir: layout.root,
      logsDir: layout.logs,
      pluginBinDir: layout.pluginBin,
      ...(cp ? { credentialProviderConfig: cp.configFile ?? layout.credentialProviderConfig } : {}),
      containerd: { address: layout.containerdSocket, certsDir: layout.certsD, ctr: state.binaries.ctr },
      kubelet: { rootDir: layout.kubeletRoot, configFile: layout.kubeletConfig, log: join(layout.logs, 'kubelet.log') },
      clusterCA: { certFile: ctx.pki.caCert, keyFile: ctx.pki.caKey },
      sandboxImage: state.sandboxImageRef,
      startedAt: new Date().toISOString(),
    };
  }
}

async function newState(
  spec: EnvironmentSpec,
  binaries: LocalState['binaries'],
  sandbox: SandboxImage,
): Promise<LocalState> {
  const [etcdClient, etcdPeer, apiserver, kubelet, kubeletHealthz, controllerManager, scheduler, kubeletB, healthzB] =
    (await freePorts(9)) as [number, number, number, number, number, number, number, number, number];
  const { cniBridge, nodeLink, nodeIP, podSubnet, second } = hostIdentity(spec.name);
  return {
    name: spec.name,
    spec,
    binaries,
    ports: { etcdClient, etcdPeer, apiserver, kubelet, kubeletHealthz, controllerManager, scheduler },
    sandboxImageRef: sandbox.ref,
    cniBridge,
    nodeLink,
    nodeIP,
    podSubnet,
    secondNode: {
      name: secondNodeName(spec.kubelet.nodeName),
      ports: { kubelet: kubeletB, kubeletHealthz: healthzB },
      nodeIP: second.nodeIP,
      cniBridge: second.cniBridge,
      podSubnet: second.podSubnet,
    },
  };
}

export function applyChange(spec: EnvironmentSpec, change: KubeletChange): EnvironmentSpec {
  const next: EnvironmentSpec = {
    ...spec,
    kubelet: { ...spec.kubelet, ...change.kubelet },
    featureGates: {
      ...spec.featureGates,
      kubelet: change.featureGates ? { ...change.featureGates } : spec.featureGates.kubelet,
    },
  };
  if (change.credentialProvider === null) delete next.credentialProvider;
  else if (change.credentialProvider) next.credentialProvider = change.credentialProvider;
  return next;
}

/**
 * up()'s order: the host's steps; then the control plane beside each node's
 * containerd (which needs none of it); then each node's kubelet, the nodes side
 * by side. A track that fails stops the others between their steps, and its
 * error is the one thrown once all have stopped (so the teardown that follows
 * races no step still starting a daemon).
 */
async function bringUpSteps(ctx: StepContext, nodes: LocalNode[], progress: Progress): Promise<void> {
  await runSteps(HOST_STEPS, ctx, progress);
  const onNode = (n: LocalNode, signal: AbortSignal): StepContext => ({ ...ctx, node: n, signal });
  const named = (n: LocalNode, steps: Step[]) =>
    n === nodes[0] ? steps : steps.map((s) => ({ name: `${s.name} (node ${n.name})`, run: s.run }));
  await alongside(ctx.signal, [
    (signal) => runSteps(CONTROL_PLANE_STEPS, { ...ctx, signal }, progress),
    ...nodes.map((n) => (signal: AbortSignal) => runSteps(named(n, RUNTIME_STEPS), onNode(n, signal), progress)),
  ]);
  await alongside(
    ctx.signal,
    nodes.map((n) => (signal: AbortSignal) => runSteps(named(n, KUBELET_STEPS), onNode(n, signal), progress)),
  );
}

/** Runs `tracks` at once; the first to fail aborts the rest, and its error is thrown once every track has settled. */
async function alongside(outer: AbortSignal | undefined, tracks: Array<(signal: AbortSignal) => Promise<void>>) {
  const abort = new AbortController();
  const signal = outer ? AbortSignal.any([outer, abort.signal]) : abort.signal;
  let first: unknown;
  const settled = await Promise.allSettled(
    tracks.map((t) =>
      t(signal).catch((err: unknown) => {
        first ??= err;
        abort.abort(err);
        throw err;
      }),
    ),
  );
  if (settled.some((r) => r.status === 'rejected')) throw first;
}

async function runSteps(steps: Step[], ctx: StepContext, progress: Progress): Promise<void> {
  for (const s of steps) {
    // Between steps: an interrupted up starts nothing more.
    ctx.signal?.throwIfAborted();
    await stepOf(progress, s.name, () => s.run(ctx));
  }
}

/** A step whose error names the step, so a failed `up` says where it stopped. */
function stepOf<T>(progress: Progress, name: string, fn: () => Promise<T>): Promise<T> {
  return step(progress, name, fn).catch((err: unknown) => {
    throw wrap(err, name);
  });
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}
