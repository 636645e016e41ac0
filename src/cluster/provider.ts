// The environment provider contract (kind's providers.Provider, applied to
// credprov). One folder per backend (local/, kind/, existing/), each exporting
// a factory that returns this interface; everything else there is private.
// Providers receive a defaulted, validated EnvironmentSpec and never read env
// vars or spec files themselves.
import type { Progress } from '../core/progress.ts';
import type { CredentialProviderSpec, EnvironmentSpec, KubeletSpec, ProviderName } from '../api/spec/types.ts';

export type Availability = { ok: true } | { ok: false; reason: string };

/**
 * What a backend can do. A suite lists the capabilities it needs
 * (PreparedSuite.needs); where one is missing its checks are skipped with the
 * reason, or fail under CI=true. Suites ask for a capability, never for a
 * provider by name.
 */
export interface Capabilities {
  /** Can restart the kubelet with another config, flags or feature gates while the control plane keeps running. */
  restartKubelet: boolean;
  /** restartKubelet also takes another kubelet binary (version skew, upgrade and downgrade). */
  swapKubeletBinary: boolean;
  /** Can put plugin executables into the kubelet's --image-credential-provider-bin-dir. */
  installPlugins: boolean;
  /** Pods can pull from registries the harness starts on the host's loopback. */
  hostRegistries: boolean;
  /** containerd is reachable from this host (Environment.containerd): its hosts.toml dirs are written here, `ctr` talks to its socket. */
  hostContainerd: boolean;
  /** The kubelet's root dir, config file and log are files on this host (Environment.kubelet); a staticPodPath or node config.json written here reaches it. */
  kubeletFiles: boolean;
  /** The cluster CA's certificate and key are files here (Environment.clusterCA): the harness can sign client certificates kube-apiserver trusts. */
  clusterCA: boolean;
  /** kube-apiserver takes the spec's token webhook and authentication config, and reaches webhooks and issuers on this host's loopback. */
  apiserverAuthn: boolean;
  /** Plugins the kubelet runs reach servers on this host's loopback at their own addresses (a fake cloud API): reachFromNodes(). */
  pluginsReachHost: boolean;
  /** A second node with its own kubelet (Environment.nodes), whose client credentials kubeletKubeconfig() hands out: what node-authorizer checks between two kubelets need. */
  secondNode: boolean;
}

export type Capability = keyof Capabilities;

/**
 * Capabilities of an environment's shape rather than of the machine: nothing
 * is missing that CI could install, the environment was brought up this way
 * (one node). Checks needing one are skipped with the reason even under
 * CI=true; they run where the environment has the shape (kind --workers 1).
 */
export const SHAPE_CAPABILITIES: readonly Capability[] = ['secondNode'];

/** Whether a check missing `missing` fails under CI (a prerequisite) or is only skipped (a shape). */
export function missingFailsUnderCi(missing: readonly Capability[]): boolean {
  return missing.some((c) => !SHAPE_CAPABILITIES.includes(c));
}

/** One line per capability, for skip reasons and `doctor`. */
export const CAPABILITY_TEXT: Record<Capability, string> = {
  restartKubelet: 'restart the kubelet with another config',
  swapKubeletBinary: 'run another kubelet binary under the same control plane',
  installPlugins: "install plugins into the kubelet's plugin dir",
  hostRegistries: "pull from registries on this host's loopback",
  hostContainerd: "reach the node's containerd from this host",
  kubeletFiles: "read and write the kubelet's files from this host",
  clusterCA: 'sign client certificates with the cluster CA',
  apiserverAuthn: 'wire a token webhook and an authentication config into kube-apiserver',
  pluginsReachHost: "let the kubelet's plugins reach servers on this host's loopback (fake cloud APIs)",
  secondNode: 'run a second node with its own kubelet identity',
};

/** The kubelet's own files, where they are reachable from this host (capability kubeletFiles). */
export interface KubeletFiles {
  /** --root-dir: image_manager/ (KEP-2535 records), config.json (the node's docker credentials). */
  rootDir: string;
  /** The KubeletConfiguration file it was started with. */
  configFile: string;
  log: string;
}

/** A running environment: everything a suite needs to reach it. Serialisable (kept as env.json in the state dir). */
export interface Environment {
  name: string;
  provider: ProviderName;
  /** The spec it was brought up with (defaulted); a later run reuses the environment when its spec matches. */
  spec: EnvironmentSpec;
  /** Version the control plane's binaries report (v1.37.1). */
  kubeVersion: string;
  /** Version the kubelet reports: kubeVersion, or an older one under version skew. Kubelet behaviour is predicted from this one. */
  kubeletVersion?: string;
  /** Admin (system:masters) kubeconfig. */
  kubeconfig: string;
  /** Directory holding the kube binaries in use (kubelet, kube-apiserver, kubectl). */
  binDir: string;
  kubectl: string;
  nodeName: string;
  /** Every node's name, nodeName first (the node suites schedule on); absent: nodeName only. */
  nodes?: string[];
  /** The environment's state dir: configs, certs, pids, logs/. */
  stateDir: string;
  logsDir: string;
  /** The kubelet's --image-credential-provider-bin-dir (when plugins are installed). */
  pluginBinDir?: string;
  /** The kubelet's --image-credential-provider-config (when a provider config is set). */
  credentialProviderConfig?: string;
  /** containerd details, when the harness runs containerd itself (local provider). */
  containerd?: {
    address: string;
    /** containerd's `config_path`: registry hosts.toml dirs (certs.d layout) go here. */
    certsDir: string;
    ctr: string;
  };
  /** The kubelet's files, when this host can reach them (capability kubeletFiles). */
  kubelet?: KubeletFiles;
  /** The cluster CA, when it is a file here (capability clusterCA). */
  clusterCA?: { certFile: string; keyFile: string };
  /** The pod sandbox (pause) image the kubelet runs, already in containerd: a record-free image every pod has. */
  sandboxImage?: string;
  /** When it came up (ISO time). */
  startedAt: string;
}

/** A name and the loopback address it must resolve to inside the nodes (capability pluginsReachHost). */
export interface NodeHostname {
  hostname: string;
  address: string;
}

/** A server on this host's loopback. */
export interface Endpoint {
  address: string;
  port: number;
}

/** A registry on this host's loopback, and the image host whose pulls must reach it. */
export interface RegistryRoute {
  /** The host image references name (docker.io, a.reg.test, reg.test:5000): containerd's certs.d dir. */
  imageHost: string;
  /** The loopback address and port the registry listens on (its certificate names the address). */
  address: string;
  port: number;
  scheme: 'http' | 'https';
  /** The CA that signed its certificate (https). */
  caCertPath?: string;
  /** Other endpoints on this host's loopback the registry sends clients to (its token realm): reachable from nodes too. */
  alsoReach?: Endpoint[];
  /** Registries containerd tries BEFORE this one for the image host ([host."…"] entries of hosts.toml, in order). */
  mirrors?: RegistryMirror[];
}

/** A [host."…"] mirror entry of an image host: another registry on this host's loopback (or a port nothing listens on). */
export interface RegistryMirror extends Endpoint {
  scheme: 'http' | 'https';
  caCertPath?: string;
  /** Path after host:port (`/cache`); containerd appends /v2 unless overridePath. */
  path?: string;
  /** Absent: containerd's default, all four. */
  capabilities?: Array<'pull' | 'resolve' | 'push' | 'referrers'>;
  overridePath?: boolean;
  alsoReach?: Endpoint[];
}

/** The mirror's URL as hosts.toml names it. */
export function mirrorUrl(m: RegistryMirror): string {
  return `${m.scheme}://${m.address}:${m.port}${m.path ?? ''}`;
}

/** A route in place; stop() removes it. */
export interface RegistryRouteHandle {
  stop(): Promise<void>;
}

/** What restartKubelet may change; absent fields keep their current value. */
export interface KubeletChange {
  kubelet?: Partial<KubeletSpec>;
  /** The kubelet's feature gates (replaces the current set). */
  featureGates?: Record<string, boolean>;
  /** `null` removes the credential provider flags. */
  credentialProvider?: CredentialProviderSpec | null;
  /** Another kubelet binary (version skew, upgrade/downgrade). */
  kubeletBinary?: string;
  /**
   * The restarted kubelet may exit on its own (a config a known kubelet bug crashes on, which the suite
   * observes): the run's component watch leaves it alone until the next restart.
   */
  exitExpected?: boolean;
}

export interface ComponentStatus {
  name: string;
  running: boolean;
  pid?: number;
  detail?: string;
}

/** A component of a running environment that died under a run: what the runner reports instead of waiting out every check's timeout. */
export interface ComponentDeath {
  component: string;
  pid?: number;
  /** The line of its log that says why (a panic, a fatal), when there is one. */
  why?: string;
  logFile?: string;
}

export interface EnvironmentStatus {
  ready: boolean;
  components: ComponentStatus[];
}

export interface EnvironmentProvider {
  readonly name: ProviderName;
  /** Whether this backend can run here; the reason names what is missing. Cheap to call twice (cached). */
  isAvailable(): Promise<Availability>;
  /** `env`: the running environment, where what it can do depends on its shape (a kind cluster with workers). */
  capabilities(env?: Environment): Capabilities;
  /** Brings an environment up as a list of named steps; on failure collects logs and tears down unless `keep`. */
  up(spec: EnvironmentSpec, progress: Progress, opts?: { keep?: boolean }): Promise<Environment>;
  /** Restarts only the kubelet with `change` applied; the control plane keeps running. */
  restartKubelet(env: Environment, change: KubeletChange, progress?: Progress): Promise<Environment>;
  status(env: Environment): Promise<EnvironmentStatus>;
  /**
   * A kubeconfig (a file here) that authenticates as `node`'s kubelet with its
   * own client certificate (system:node:<node>), for checks of what the node
   * authorizer lets one kubelet do. Providers with capability secondNode have it.
   */
  kubeletKubeconfig?(env: Environment, node: string): Promise<string>;
  /**
   * Capability hostRegistries: makes every node's containerd send pulls of
   * images named route.imageHost to the registry, with the registry as the
   * host's `server` (not a mirror), so the kubelet's credentials for the
   * image's host reach it as they would the real host. `route.mirrors`
   * become [host."…"] entries tried first (each trusted with its own CA).
   */
  routeRegistry?(env: Environment, route: RegistryRoute): Promise<RegistryRouteHandle>;
  /**
   * Capability pluginsReachHost: servers on this host's loopback answer at the same address and port inside
   * every node, and `names` resolve to their loopback address there (a plugin whose cloud URL is a fixed name).
   */
  reachFromNodes?(env: Environment, endpoints: Endpoint[], names?: NodeHostname[]): Promise<RegistryRouteHandle>;
  /**
   * Resolves when one of the environment's components dies (not when the
   * provider itself restarts it), and never otherwise; rejects once `signal`
   * aborts. Providers that cannot tell leave it out.
   */
  watchComponents?(env: Environment, signal: AbortSignal): Promise<ComponentDeath>;
  /** Copies every component's log into `dir` (evidence for a failing run). */
  collectLogs(env: Environment, dir: string): Promise<void>;
  /** Stops everything this provider started for `env` and removes its state. Idempotent; safe after a failed up(). */
  down(env: Environment | string, progress?: Progress): Promise<void>;
}
