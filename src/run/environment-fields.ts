// Environment fields that only some providers fill, read the way a suite that
// declared the matching capability expects them: present, or a clear error
// (an environment brought up by an older credprov lacks them).
import { CredprovError } from '../core/errors.ts';
import type { Environment, KubeletFiles } from '../cluster/provider.ts';

function missing(env: Environment, field: string, capability: string): CredprovError {
  return new CredprovError(
    `environment ${env.name} (provider ${env.provider}) has no ${field}: the suite needs capability ${capability}`,
    {
      hint: `if its provider has it, the environment predates this credprov: credprov down --name ${env.name}, then run again`,
    },
  );
}

/** The kubelet's root dir, config file and log on this host (capability kubeletFiles). */
export function kubeletFilesOf(env: Environment): KubeletFiles {
  if (!env.kubelet) throw missing(env, 'kubelet files', 'kubeletFiles');
  return env.kubelet;
}

/** The cluster CA's certificate and key files (capability clusterCA). */
export function clusterCAOf(env: Environment): { certFile: string; keyFile: string } {
  if (!env.clusterCA) throw missing(env, 'cluster CA', 'clusterCA');
  return env.clusterCA;
}

/** Node A (the one suites schedule on, nodeName) and node B, another node with its own kubelet (capability secondNode). */
export function twoNodesOf(env: Environment): [nodeA: string, nodeB: string] {
  const other = (env.nodes ?? []).find((n) => n !== env.nodeName);
  if (!other) throw missing(env, 'second node (Environment.nodes)', 'secondNode');
  return [env.nodeName, other];
}

/** The version of the kubelet the environment runs now (a skewed or swapped one), else the cluster's. */
export function kubeletVersionOf(env: Pick<Environment, 'kubeletVersion' | 'kubeVersion'>): string {
  return env.kubeletVersion ?? env.kubeVersion;
}
