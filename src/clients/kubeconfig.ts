// The kubeconfig credprov hands a client probe: one cluster (a server and the
// CA that signed its certificate), one user whose exec stanza is the one
// under test, one current context. Every client loads it with its own loader
// (clientcmd, KubeConfig.loadFromFile, kubernetes.config.load_kube_config).
// The command is written as an absolute path, resolved as client-go resolves
// it, so every client runs the same binary (the clients differ in how they
// resolve a relative one: client-node against its cwd, not the kubeconfig's
// directory). Written 0600: exec.env may hold secrets.
import { writeFile } from 'node:fs/promises';
import { EXEC_CLUSTER_EXTENSION, type ExecConfig } from '../api/exec/types.ts';

export interface ProbeKubeconfig {
  server: string;
  caPem: string;
  exec: ExecConfig;
  /** The absolute path the exec command resolves to (client-go's resolution). */
  resolvedCommand: string;
  /** The cluster's client.authentication.k8s.io/exec extension (spec.cluster.config with provideClusterInfo). */
  clusterConfig?: unknown;
  /** Names in the file; the defaults read well in a client's error messages. */
  names?: { cluster?: string; user?: string; context?: string };
}

export function probeKubeconfig(k: ProbeKubeconfig): Record<string, unknown> {
  const cluster = k.names?.cluster ?? 'credprov-endpoint';
  const user = k.names?.user ?? 'plugin-under-test';
  const context = k.names?.context ?? 'credprov';
  const exec: Record<string, unknown> = {
    apiVersion: k.exec.apiVersion,
    command: k.resolvedCommand,
    ...(k.exec.args.length ? { args: k.exec.args } : {}),
    ...(k.exec.env.length ? { env: k.exec.env.map((e) => ({ name: e.name, value: e.value })) } : {}),
    ...(k.exec.installHint ? { installHint: k.exec.installHint } : {}),
    interactiveMode: k.exec.interactiveMode,
    ...(k.exec.provideClusterInfo ? { provideClusterInfo: true } : {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': context,
    clusters: [
      {
        name: cluster,
        cluster: {
          server: k.server,
          'certificate-authority-data': Buffer.from(k.caPem).toString('base64'),
          ...(k.clusterConfig !== undefined
            ? { extensions: [{ name: EXEC_CLUSTER_EXTENSION, extension: k.clusterConfig }] }
            : {}),
        },
      },
    ],
    contexts: [{ name: context, context: { cluster, user } }],
    users: [{ name: user, user: { exec } }],
  };
}

export async function writeProbeKubeconfig(path: string, k: ProbeKubeconfig): Promise<string> {
  await writeFile(path, `${JSON.stringify(probeKubeconfig(k), null, 2)}\n`, { mode: 0o600 });
  return path;
}
