// Where a local environment keeps everything: one directory per environment
// name, so `down` (even after a crash) knows exactly what to stop and remove.
import { join } from 'node:path';
import { stateDir } from '../../core/paths.ts';

export interface Layout {
  /** The environment's name. */
  name: string;
  root: string;
  /** env.json: the Environment record (written once up succeeds). */
  envFile: string;
  pids: string;
  logs: string;
  certs: string;
  config: string;
  etcdData: string;
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
  adminKubeconfig: string;
  kubeletKubeconfig: string;
  controllerManagerKubeconfig: string;
  schedulerKubeconfig: string;
  schedulerConfig: string;
}

export function envRoot(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'env', name);
}

export function layoutFor(name: string, env: NodeJS.ProcessEnv = process.env): Layout {
  const root = envRoot(name, env);
  const data = join(root, 'data');
  return {
    name,
    root,
    envFile: join(root, 'env.json'),
    pids: join(root, 'pids'),
    logs: join(root, 'logs'),
    certs: join(root, 'certs'),
    config: join(root, 'config'),
    etcdData: join(data, 'etcd'),
    containerdRoot: join(data, 'containerd'),
    containerdState: join(root, 'run', 'containerd'),
    // Unix socket paths are limited to 108 bytes; keep this one short.
    containerdSocket: join(root, 'run', 'cd.sock'),
    containerdConfig: join(root, 'config', 'containerd.toml'),
    certsD: join(root, 'config', 'certs.d'),
    cniConf: join(root, 'config', 'cni'),
    kubeletRoot: join(data, 'kubelet'),
    podLogs: join(data, 'pod-logs'),
    pluginBin: join(root, 'plugins'),
    kubeletConfig: join(root, 'config', 'kubelet.yaml'),
    credentialProviderConfig: join(root, 'config', 'credential-provider.yaml'),
    adminKubeconfig: join(root, 'admin.kubeconfig'),
    kubeletKubeconfig: join(root, 'config', 'kubelet.kubeconfig'),
    controllerManagerKubeconfig: join(root, 'config', 'controller-manager.kubeconfig'),
    schedulerKubeconfig: join(root, 'config', 'scheduler.kubeconfig'),
    schedulerConfig: join(root, 'config', 'scheduler.yaml'),
  };
}
