// The real exec-plugin clients, each able to judge thousands of plugin answers
// in one go: client-go (its probe in --batch mode: a client of its own per
// kubeconfig, in one process), the Python client (probe.py --batch, the same),
// @kubernetes/client-node (in credprov's process, one KubeConfig per answer)
// and kube-rs (its probe, one process per answer: 0.1 s to start; judged in
// src/clients/field-probes.test.ts). Each has a scripted endpoint of its own,
// and answers one case at a time, so a request the endpoint refuses before
// reading it (no path to tell it by) belongs to the case in flight.
import { join } from 'node:path';
import { V1 } from '../api/exec/types.ts';
import { ensureClientGoProbe } from '../clients/client-go.ts';
import { clientNodeProbe, clientNodeVersion } from '../clients/client-node.ts';
import { clientGoVersionFor, defaultClientEnv } from '../clients/common.ts';
import { writeProbeKubeconfig } from '../clients/kubeconfig.ts';
import { kubectlProbe } from '../clients/kubectl.ts';
import { kubeRsProbe } from '../clients/kube-rs/kube-rs.ts';
import type { ClientProbe, ExecClientName } from '../clients/probe.ts';
import { pinnedPythonClientVersion, PYTHON_PROBE_SCRIPT, pythonClientVenv, pythonProbe } from '../clients/python.ts';
import { startScriptedEndpoint, verdictAtEndpoint, type ScriptedEndpoint } from '../clients/scripted-endpoint.ts';
import type { Verdict } from '../clients/decoding-model.ts';
import { cacheDir } from '../core/paths.ts';
import { DEFAULT_KUBE_VERSION } from '../versions/table.ts';
import { startJsonLines } from './json-lines.ts';

export interface BatchClient {
  name: ExecClientName;
  version: string;
  /** What reached this client's endpoint when it ran `plugin` (a command and its args) as its exec plugin, once. */
  judge(plugin: { command: string; args: string[] }, caseId: number): Promise<{ verdict: Verdict; error?: string }>;
  close(): Promise<void>;
}

/** A plugin that prints `answerFile` and exits `exitCode`: what the differential test runs. */
export function printing(answerFile: string, exitCode: number): { command: string; args: string[] } {
  return { command: '/bin/sh', args: ['-c', 'cat "$0"; exit "$1"', answerFile, String(exitCode)] };
}

/** Per request: an answer file printed by cat cannot hang, so this only catches a broken client. */
const CASE_TIMEOUT_MS = 30_000;

function kubeconfigFor(
  endpoint: ScriptedEndpoint,
  dir: string,
  name: string,
  plugin: { command: string; args: string[] },
  id: number,
) {
  return writeProbeKubeconfig(join(dir, `${name}-${id}.kubeconfig`), {
    server: endpoint.server,
    caPem: endpoint.caPem,
    resolvedCommand: plugin.command,
    exec: {
      command: plugin.command,
      args: plugin.args,
      env: [],
      apiVersion: V1,
      interactiveMode: 'Never',
      provideClusterInfo: false,
    },
  });
}

async function batchClient(
  name: ExecClientName,
  version: string,
  dir: string,
  ask: (kubeconfig: string, path: string) => Promise<{ status?: number; error?: string }>,
  close: () => Promise<void>,
): Promise<BatchClient> {
  const endpoint = await startScriptedEndpoint();
  return {
    name,
    version,
    async judge(plugin, id) {
      const kubeconfig = await kubeconfigFor(endpoint, dir, name, plugin, id);
      const path = `/version?case=${id}`;
      const before = endpoint.rejections().length;
      let timer: NodeJS.Timeout | undefined;
      const r = await Promise.race([
        ask(kubeconfig, path),
        new Promise<{ error: string }>((res) => {
          timer = setTimeout(() => res({ error: `no answer within ${CASE_TIMEOUT_MS} ms` }), CASE_TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
      const seen = endpoint.requests().filter((q) => q.url === path);
      const verdict = verdictAtEndpoint(seen, endpoint.rejections().slice(before));
      return { verdict, ...(r.error ? { error: r.error } : {}) };
    },
    async close() {
      await close();
      await endpoint.stop();
    },
  };
}

export interface Unavailable {
  name: ExecClientName;
  reason: string;
}

/** Every batch client this machine can run; the others with why. */
/** A client with one session per request (kubectl's nature; client-node, in credprov's process, is cheap). */
function perRequest(
  probe: ClientProbe,
  env: NodeJS.ProcessEnv,
): (kubeconfig: string, path: string) => Promise<{ status?: number; error?: string }> {
  return async (kubeconfig, path) => {
    const session = await probe.start({ kubeconfig }, { env, timeoutMs: CASE_TIMEOUT_MS });
    try {
      return await session.request(path);
    } finally {
      await session.close();
    }
  };
}

const nothing = async () => {};

/** The clients a differential can run: the four core clients, and kube-rs (the field client that starts fast). */
export type BatchClientName = 'kubectl' | 'client-go' | 'client-node' | 'python' | 'kube-rs';

/** Starts the named clients this machine can run; the others are named with why. */
export async function startBatchClients(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
  names: readonly BatchClientName[] = ['kubectl', 'client-go', 'client-node', 'python'],
): Promise<{ clients: BatchClient[]; unavailable: Unavailable[] }> {
  const clientEnv = defaultClientEnv(env);
  const start: Record<BatchClientName, () => Promise<BatchClient | Unavailable>> = {
    'client-go': async () => {
      const probe = await ensureClientGoProbe({ cachedOnly: true, env });
      if (!probe)
        return {
          name: 'client-go',
          reason: 'the client-go probe is not built: run scripts/credprov clients ensure (scripts/test.sh builds it)',
        };
      const lines = await startJsonLines(probe.path, ['--batch'], 'client-go-probe', clientEnv);
      const version = clientGoVersionFor(DEFAULT_KUBE_VERSION);
      return batchClient('client-go', version, dir, (kubeconfig, path) => lines.ask({ kubeconfig, path }), lines.close);
    },
    kubectl: async () => {
      const probe = kubectlProbe({ env });
      const a = await probe.available();
      return a.ok
        ? batchClient('kubectl', a.version, dir, perRequest(probe, clientEnv), nothing)
        : { name: 'kubectl', reason: a.reason };
    },
    'client-node': async () =>
      batchClient(
        'client-node',
        await clientNodeVersion(),
        dir,
        perRequest(clientNodeProbe({ env }), clientEnv),
        nothing,
      ),
    'kube-rs': async () => {
      const probe = kubeRsProbe({ env });
      const a = await probe.available();
      return a.ok
        ? batchClient('kube-rs', a.version, dir, perRequest(probe, clientEnv), nothing)
        : { name: 'kube-rs', reason: a.reason };
    },
    python: async () => {
      const a = await pythonProbe({ env }).available();
      if (!a.ok) return { name: 'python', reason: a.reason };
      const bin = join(pythonClientVenv(cacheDir(env), pinnedPythonClientVersion()), 'bin', 'python');
      const lines = await startJsonLines(bin, ['-u', '-I', PYTHON_PROBE_SCRIPT, '--batch'], 'python-probe', clientEnv);
      return batchClient('python', a.version, dir, (kubeconfig, path) => lines.ask({ kubeconfig, path }), lines.close);
    },
  };
  const started = await Promise.all(names.map((n) => start[n]()));
  return {
    clients: started.filter((c): c is BatchClient => 'judge' in c),
    unavailable: started.filter((c): c is Unavailable => !('judge' in c)),
  };
}
