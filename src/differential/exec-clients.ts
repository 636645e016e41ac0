// The real exec-plugin clients, each able to judge thousands of plugin answers
// in one go: client-go (its probe in --batch mode: a client of its own per
// kubeconfig, in one process), the Python client (probe.py --batch, the same),
// and @kubernetes/client-node (in credprov's process, one KubeConfig per
// answer). Each has a scripted endpoint of its own, and answers one case at a
// time, so a request the endpoint refuses before reading it (no path to tell
// it by) belongs to the case in flight.
import { join } from 'node:path';
import { V1 } from '../api/exec/types.ts';
import { ensureClientGoProbe } from '../clients/client-go.ts';
import { clientNodeProbe, clientNodeVersion } from '../clients/client-node.ts';
import { clientGoVersionFor, defaultClientEnv } from '../clients/common.ts';
import { writeProbeKubeconfig } from '../clients/kubeconfig.ts';
import type { ClientName } from '../clients/probe.ts';
import { pinnedPythonClientVersion, PYTHON_PROBE_SCRIPT, pythonClientVenv, pythonProbe } from '../clients/python.ts';
import { startScriptedEndpoint, verdictAtEndpoint, type ScriptedEndpoint } from '../clients/scripted-endpoint.ts';
import type { Verdict } from '../clients/decoding-model.ts';
import { cacheDir } from '../core/paths.ts';
import { DEFAULT_KUBE_VERSION } from '../versions/table.ts';
import { startJsonLines } from './json-lines.ts';

export interface BatchClient {
  name: ClientName;
  version: string;
  /** What reached this client's endpoint when it ran `/bin/sh -c 'cat answer; exit code'` as its exec plugin. */
  judge(answerFile: string, exitCode: number, caseId: number): Promise<{ verdict: Verdict; error?: string }>;
  close(): Promise<void>;
}

/** Per request: an answer file printed by cat cannot hang, so this only catches a broken client. */
const CASE_TIMEOUT_MS = 30_000;

function kubeconfigFor(
  endpoint: ScriptedEndpoint,
  dir: string,
  name: string,
  answerFile: string,
  exitCode: number,
  id: number,
) {
  return writeProbeKubeconfig(join(dir, `${name}-${id}.kubeconfig`), {
    server: endpoint.server,
    caPem: endpoint.caPem,
    resolvedCommand: '/bin/sh',
    exec: {
      command: '/bin/sh',
      args: ['-c', 'cat "$0"; exit "$1"', answerFile, String(exitCode)],
      env: [],
      apiVersion: V1,
      interactiveMode: 'Never',
      provideClusterInfo: false,
    },
  });
}

async function batchClient(
  name: ClientName,
  version: string,
  dir: string,
  ask: (kubeconfig: string, path: string) => Promise<{ status?: number; error?: string }>,
  close: () => Promise<void>,
): Promise<BatchClient> {
  const endpoint = await startScriptedEndpoint();
  return {
    name,
    version,
    async judge(answerFile, exitCode, id) {
      const kubeconfig = await kubeconfigFor(endpoint, dir, name, answerFile, exitCode, id);
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
  name: ClientName;
  reason: string;
}

/** Every batch client this machine can run; the others with why. */
export async function startBatchClients(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ clients: BatchClient[]; unavailable: Unavailable[] }> {
  const clients: BatchClient[] = [];
  const unavailable: Unavailable[] = [];
  const clientEnv = defaultClientEnv(env);

  const goProbe = await ensureClientGoProbe({ cachedOnly: true, env });
  if (goProbe) {
    const lines = await startJsonLines(goProbe.path, ['--batch'], 'client-go-probe', clientEnv);
    clients.push(
      await batchClient(
        'client-go',
        clientGoVersionFor(DEFAULT_KUBE_VERSION),
        dir,
        (kubeconfig, path) => lines.ask({ kubeconfig, path }),
        () => lines.close(),
      ),
    );
  } else
    unavailable.push({
      name: 'client-go',
      reason: `the client-go probe is not built: run scripts/credprov clients ensure (scripts/test.sh builds it)`,
    });

  const node = clientNodeProbe({ env });
  const nodeVersion = await clientNodeVersion();
  clients.push(
    await batchClient(
      'client-node',
      nodeVersion,
      dir,
      async (kubeconfig, path) => {
        const session = await node.start({ kubeconfig }, { env: clientEnv, timeoutMs: CASE_TIMEOUT_MS });
        try {
          return await session.request(path);
        } finally {
          await session.close();
        }
      },
      async () => {},
    ),
  );

  const python = await pythonProbe({ env }).available();
  if (python.ok) {
    const bin = join(pythonClientVenv(cacheDir(env), pinnedPythonClientVersion()), 'bin', 'python');
    const lines = await startJsonLines(bin, ['-u', '-I', PYTHON_PROBE_SCRIPT, '--batch'], 'python-probe', clientEnv);
    clients.push(
      await batchClient(
        'python',
        python.version,
        dir,
        (kubeconfig, path) => lines.ask({ kubeconfig, path }),
        () => lines.close(),
      ),
    );
  } else unavailable.push({ name: 'python', reason: python.reason });
  return { clients, unavailable };
}
