// credprov clients ls: the real exec-plugin clients credprov can drive on
// this machine (kubectl, client-go, client-node, python), with their versions,
// or why one cannot run and how to get it.
import { availableProbes, type ProbeAvailability } from '../clients/index.ts';
import { DEFAULT_KUBE_VERSION } from '../versions/table.ts';
import type { Command, CommandContext } from './command.ts';
import { parseFlags } from './flags.ts';
import { kubeVersionFlag } from './kube-version-flag.ts';
import { printJson } from './output.ts';

/** The listing `clients ls` and `clients ensure` end with: a table, or under --json {kubeVersion, clients}; exit 0 when every client is available. */
export function printClients(ctx: CommandContext, kubeVersion: string, all: ProbeAvailability[]): number {
  if (ctx.json) {
    printJson(ctx, {
      kubeVersion,
      clients: all.map(({ probe, availability }) => ({ name: probe.name, ...availability })),
    });
  } else {
    const lines = all.map(
      ({ probe, availability: a }) => `  ${probe.name.padEnd(12)} ${a.ok ? a.version : `unavailable: ${a.reason}`}`,
    );
    ctx.stdout(`exec-plugin clients (kube ${kubeVersion}):\n${lines.join('\n')}\n`);
  }
  return all.every((c) => c.availability.ok) ? 0 : 1;
}

export const command: Command = {
  path: ['clients', 'ls'],
  summary: 'list the exec-plugin clients (kubectl, client-go, client-node, python) this machine can run',
  usage: `Usage: credprov clients ls [--kube-version V]

Lists the real clients certify exec-plugin --clients and the exec-plugin suites
drive, with the version of each, or why it cannot run here and how to get it.
kubectl and client-go are taken at the cluster's version (default ${DEFAULT_KUBE_VERSION}).
With --json: {kubeVersion, clients: [{name, ok, version | reason}]}.
Exit code 0 when every client is available, 1 otherwise.
`,
  async run(argv, ctx) {
    const { values } = parseFlags<{ 'kube-version'?: string }>('clients ls', argv, {
      'kube-version': { type: 'string' },
    });
    const kubeVersion = kubeVersionFlag('clients ls', values['kube-version'], ctx.env);
    return printClients(ctx, kubeVersion, await availableProbes({ kubeVersion, env: ctx.env }));
  },
};
