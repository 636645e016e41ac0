// Where a local environment keeps everything: one directory per environment
// name, so `down` (even after a crash) knows exactly what to stop and remove.
// `data/` is a tmpfs of its own (mountData): etcd, containerd's content and
// snapshots, the kubelets' roots go with one unmount.
import { join } from 'node:path';
import { stateDir } from '../../core/paths.ts';

/** What one node (a kubelet and its containerd) keeps, apart from the other node's. */
export interface NodeFiles {
  containerdRoot: string;
  containerdState: string;
  containerdSocket: string;
  containerdConfig: string;
  certsD: string;
  cniConf: string;
  kubeletRoot: string;
  podLogs: string;
  pluginBin: string;
  kubeletConfig: string;
  credentialProviderConfig: string;
  kubeletKubeconfig: string;
  /** Where the sandbox image archive is written while it is imported. */
  sandboxArchive: string;
}

/** The first node's files are the layout's own fields (what suites and `credprov` commands see); the second node's are under `second`. */
export interface Layout extends NodeFiles {
  /** The environment's name. */
  name: string;
  root: string;
  /** The tmpfs holding etcd's data and both nodes' containerd and kubelet state. */
  data: string;
  /** env.json: the Environment record (written once up succeeds). */
  envFile: string;
  pids: string;
  logs: string;
  certs: string;
  config: string;
  etcdData: string;
  adminKubeconfig: string;
  controllerManagerKubeconfig: string;
  schedulerKubeconfig: string;
  schedulerConfig: string;
  second: NodeFiles;
}

export function envRoot(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'env', name);
}

function nodeFiles(root: string, data: string, node: '' | 'b'): NodeFiles {
  const dir = (base: string) => (node ? join(base, node) : base);
  const config = dir(join(root, 'config'));
  return {
    containerdRoot: join(dir(data), 'containerd'),
    containerdState: join(dir(join(root, 'run')), 'containerd'),
    // Unix socket paths are limited to 108 bytes; keep these short.
    containerdSocket: join(root, 'run', node ? `cd-${node}.sock` : 'cd.sock'),
    containerdConfig: join(config, 'containerd.toml'),
    certsD: join(config, 'certs.d'),
    cniConf: join(config, 'cni'),
    kubeletRoot: join(dir(data), 'kubelet'),
    podLogs: join(dir(data), 'pod-logs'),
    pluginBin: join(dir(root), 'plugins'),
    kubeletConfig: join(config, 'kubelet.yaml'),
    credentialProviderConfig: join(config, 'credential-provider.yaml'),
    kubeletKubeconfig: join(config, 'kubelet.kubeconfig'),
    sandboxArchive: join(dir(root), 'sandbox-image.tar'),
  };
}

export function layoutFor(name: string, env: NodeJS.ProcessEnv = process.env): Layout {
  const root = envRoot(name, env);
  const data = join(root, 'data');
  return {
    name,
    root,
    data,
    ...nodeFiles(root, data, ''),
    envFile: join(root, 'env.json'),
    pids: join(root, 'pids'),
    logs: join(root, 'logs'),
    certs: join(root, 'certs'),
    config: join(root, 'config'),
    etcdData: join(data, 'etcd'),
    adminKubeconfig: join(root, 'admin.kubeconfig'),
    controllerManagerKubeconfig: join(root, 'config', 'controller-manager.kubeconfig'),
    schedulerKubeconfig: join(root, 'config', 'scheduler.kubeconfig'),
    schedulerConfig: join(root, 'config', 'scheduler.yaml'),
    second: nodeFiles(root, data, 'b'),
  };
}
