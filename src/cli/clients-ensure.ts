// credprov clients ensure: builds the client-go probe for a Kubernetes
// version (from the Go module proxy, cached), then lists every client as
// `clients ls` does. kubectl comes with `binaries ensure`, the Python client
// with scripts/setup.sh, @kubernetes/client-node with the node modules.
import { availableProbes } from '../clients/index.ts';
import { ensureClientGoProbe } from '../clients/client-go.ts';
import { exactKubeVersion } from '../clients/common.ts';
import { UsageError } from '../core/errors.ts';
import { stderrProgress } from '../core/progress.ts';
import { DEFAULT_KUBE_VERSION } from '../versions/table.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';
import { withInterrupt } from './interrupt.ts';

export function kubeVersionFlag(name: string, value: string | undefined, env: NodeJS.ProcessEnv): string {
  const raw = value ?? env.CREDPROV_KUBE_VERSION ?? DEFAULT_KUBE_VERSION;
  const exact = exactKubeVersion(raw);
  if (!exact) throw new UsageError(`${name}: --kube-version ${JSON.stringify(raw)} is not an exact version`, { hint: 'write it like v1.37.1: kubectl and client-go are taken at that release' });
  return exact;
}

export const command: Command = {
  path: ['clients', 'ensure'],
  summary: 'build the client-go probe for a Kubernetes version and list the exec-plugin clients',
  usage: `Usage: credprov clients ensure [--kube-version V]

Builds the client-go probe (src/clients/client-go-probe) against k8s.io/client-go
of the given Kubernetes version (v1.37.1 → v0.37.1) from the Go module proxy, once,
into $CREDPROV_CACHE_DIR/clients/client-go-probe/, then lists every client as
'credprov clients ls' does. The other clients come from elsewhere:
  kubectl      credprov binaries ensure --kube-version V (scripts/setup.sh --cluster)
  python       scripts/setup.sh (a venv with kubernetes from PyPI)
  client-node  the node modules (scripts/setup.sh)
Exit code 0 when every client is available afterwards, 1 otherwise.
`,
  async run(argv, ctx) {
    const { values } = parseFlags<{ 'kube-version'?: string }>('clients ensure', argv, { 'kube-version': { type: 'string' } });
    const kubeVersion = kubeVersionFlag('clients ensure', values['kube-version'], ctx.env);
    const progress = stderrProgress();
    await withInterrupt((signal) => ensureClientGoProbe({ kubeVersion, env: ctx.env, progress, signal }));
    const all = await availableProbes({ kubeVersion, env: ctx.env });
    const lines = all.map(({ probe, availability: a }) => `  ${probe.name.padEnd(12)} ${a.ok ? a.version : `unavailable: ${a.reason}`}`);
    ctx.stdout(`exec-plugin clients (kube ${kubeVersion}):\n${lines.join('\n')}\n`);
    return all.every((c) => c.availability.ok) ? 0 : 1;
  },
};
