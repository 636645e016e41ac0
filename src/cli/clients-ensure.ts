// credprov clients ensure: builds the client-go probe for a Kubernetes
// version (from the Go module proxy, cached), then lists every client as
// `clients ls` does. kubectl comes with `binaries ensure`, the Python client
// with scripts/setup.sh --tests, @kubernetes/client-node with the node modules.
import { availableProbes } from '../clients/index.ts';
import { ensureClientGoProbe } from '../clients/client-go.ts';
import { stderrProgress } from '../core/progress.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';
import { withInterrupt } from './interrupt.ts';
import { kubeVersionFlag } from './kube-version-flag.ts';
import { printClients } from './clients-ls.ts';

export const command: Command = {
  path: ['clients', 'ensure'],
  summary: 'build the client-go probe for a Kubernetes version and list the exec-plugin clients',
  usage: `Usage: credprov clients ensure [--kube-version V]

Builds the client-go probe (src/clients/client-go-probe) against k8s.io/client-go
of the given Kubernetes version (v1.37.1 → v0.37.1) from the Go module proxy, once,
into $CREDPROV_CACHE_DIR/clients/client-go-probe/, then lists every client as
'credprov clients ls' does (--json: the same document). The other clients come from elsewhere:
  kubectl      credprov binaries ensure --kube-version V (scripts/setup.sh --cluster)
  python       scripts/setup.sh --tests (a venv with kubernetes from PyPI)
  client-node  the node modules (scripts/setup.sh)
Exit code 0 when every client is available afterwards, 1 otherwise.
`,
  async run(argv, ctx) {
    const { values } = parseFlags<{ 'kube-version'?: string }>('clients ensure', argv, {
      'kube-version': { type: 'string' },
    });
    const kubeVersion = kubeVersionFlag('clients ensure', values['kube-version'], ctx.env);
    const progress = stderrProgress();
    await withInterrupt((signal) => ensureClientGoProbe({ kubeVersion, env: ctx.env, progress, signal }));
    return printClients(ctx, kubeVersion, await availableProbes({ kubeVersion, env: ctx.env }));
  },
};
