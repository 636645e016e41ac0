// credprov doctor: per environment provider, what it needs and what this
// machine has, with a hint for each missing thing. Exit 0 when the provider
// `credprov up` would pick can run.
import { DEFAULT_KUBE_VERSION } from '../cluster/binaries/versions.ts';
import { execaRunner } from '../cluster/kind/tools.ts';
import type { Availability, EnvironmentProvider } from '../cluster/provider.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';
import { renderDoctor, runDoctor } from './doctor-checks.ts';

async function verdict(load: () => Promise<EnvironmentProvider>): Promise<Availability> {
  try {
    return await (await load()).isAvailable();
  } catch (err) {
    return { ok: false, reason: `provider failed to load: ${(err as Error).message}` };
  }
}

export const command: Command = {
  path: ['doctor'],
  summary: 'list what each environment provider needs and what this machine has',
  usage: `Usage: credprov doctor [--kube-version V] [--json]

For each environment provider (local, kind, existing) lists what it needs and
whether this machine has it (kube binaries, Go, containerd, runc, CNI plugins,
etcd, registry, root, cgroups, /etc/hosts, ports, Docker engine, kind, node
image), with a hint for each missing thing.

Exit code 0 when the provider 'credprov up' picks (local, else kind) can run, 3 otherwise.

Flags:
  --kube-version V   check for this version (default: $CREDPROV_KUBE_VERSION or ${DEFAULT_KUBE_VERSION})
  --json             the report as JSON on stdout
`,
  async run(argv, ctx) {
    const { values } = parseFlags<{ 'kube-version'?: string }>('doctor', argv, { 'kube-version': { type: 'string' } });
    const env = ctx.env;
    const report = await runDoctor(
      {
        run: execaRunner(ctx.log),
        env,
        uid: process.getuid?.() ?? -1,
        availability: {
          local: () => verdict(async () => (await import('../cluster/local/index.ts')).localProvider({ env })),
          kind: () => verdict(async () => (await import('../cluster/kind/index.ts')).kindProvider({ env })),
          existing: () => verdict(async () => (await import('../cluster/existing/index.ts')).existingProvider({ env })),
        },
      },
      values['kube-version'] ?? env.CREDPROV_KUBE_VERSION ?? DEFAULT_KUBE_VERSION,
    );
    ctx.stdout(ctx.json ? `${JSON.stringify(report)}\n` : renderDoctor(report));
    return report.defaultProvider === 'none' ? 3 : 0;
  },
};
