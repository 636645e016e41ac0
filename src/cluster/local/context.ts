// What the local provider's steps share: the spec, where things live, the
// binaries, the ports, the PKI. Persisted as local.json so `down` and
// `restartKubelet` from a later command know what `up` did.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import type { Logger } from '../../core/logger.ts';
import type { Layout, NodeFiles } from './layout.ts';
import type { Pki } from './certs.ts';

export interface LocalBinaries {
  binDir: string;
  kubelet: string;
  /** The version the kubelet is (kubelet.version under version skew, else the control plane's). */
  kubeletVersion: string;
  kubeApiserver: string;
  kubectl: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  etcd: string;
  containerd: string;
  ctr: string;
  containerdVersion: string;
  /** Directory with containerd-shim-runc-v2 and runc: put on containerd's PATH. */
  runtimePath: string;
  version: string;
}

export interface LocalPorts {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  kubelet: number;
  kubeletHealthz: number;
  controllerManager: number;
  scheduler: number;
}

export interface SandboxImage {
  ref: string;
  /** Produces the image archive (OCI layout tar) at `path`. */
  writeArchive(path: string): Promise<void>;
}

/** The persisted part (local.json). */
export interface LocalState {
  name: string;
  spec: EnvironmentSpec;
  binaries: LocalBinaries;
  ports: LocalPorts;
  sandboxImageRef: string;
  /** A dummy interface carrying the node's address (removed on down). */
  nodeLink: string;
  nodeIP: string;
  /** The CNI bridge this environment created (removed on down). */
  cniBridge: string;
  podSubnet: string;
  /** The second node (absent in state written before it existed: that environment has one node). */
  secondNode?: SecondNodeState;
}

/** What the second node was given at `up`: its kubelet runs the defaults, whatever the first one is restarted with. */
export interface SecondNodeState {
  name: string;
  ports: { kubelet: number; kubeletHealthz: number };
  nodeIP: string;
  cniBridge: string;
  podSubnet: string;
}

/** One node as its steps see it: a kubelet and its own containerd, each with its own files, ports, network and cgroup root. */
export interface LocalNode {
  /** The node's name; its kubelet authenticates as system:node:<name>. */
  name: string;
  /** Pid and log file names: kubelet and containerd on the first node, kubelet-b and containerd-b on the second. */
  daemons: { kubelet: string; containerd: string };
  files: NodeFiles;
  ports: { kubelet: number; kubeletHealthz: number };
  nodeIP: string;
  podSubnet: string;
  cniBridge: string;
  cniNetwork: string;
  /** Under every cgroup hierarchy, without the leading slash. */
  cgroupRoot: string;
  /** The kubelet settings it runs with: the first node's are the environment's spec (what suites change), the second's the defaults. */
  spec: EnvironmentSpec;
  kubeletBinary: string;
  /** The client certificate its kubeconfig carries. */
  cert: { cert: string; key: string };
}

export interface StepContext {
  state: LocalState;
  layout: Layout;
  pki: Pki;
  log: Logger;
  sandboxImage: SandboxImage;
  apiServerUrl: string;
  /** The node the node steps (containerd, kubelet) act on; the environment-wide steps ignore it. */
  node: LocalNode;
  /** When startKubelet started the current kubelet (ms since epoch): older node status is stale. */
  kubeletStartedAt?: number;
  /** Aborted when the `up` is interrupted: waits end early, and no further step starts. */
  signal?: AbortSignal;
}

export interface Step {
  name: string;
  run(ctx: StepContext): Promise<void>;
}

export async function saveState(layout: Layout, state: LocalState): Promise<void> {
  await writeFile(join(layout.root, 'local.json'), `${JSON.stringify(state, null, 2)}\n`);
}

export async function loadState(layout: Layout): Promise<LocalState | undefined> {
  try {
    return JSON.parse(await readFile(join(layout.root, 'local.json'), 'utf8')) as LocalState;
  } catch {
    return undefined;
  }
}
