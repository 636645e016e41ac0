// credprov down: tear environments down (by name, or all of them), including
// ones a crashed run left behind. Idempotent.
import { stderrProgress } from '../core/progress.ts';
import { listEnvironmentNames, providerByName, readEnvironment } from '../cluster/detect.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';
import { printJson } from './output.ts';

const USAGE = `Usage: credprov down [--name NAME | --all]

Stops every process credprov started for the environment (kubelet, containers,
containerd, kube-apiserver, etcd), unmounts what it mounted, removes its network
links and its state dir. Safe to run twice, and after a crashed run.
  --name  environment name (default: $CREDPROV_ENV_NAME or default)
  --all   every environment credprov knows about
  --json  print {"stopped":[names]} on stdout (as registry down does)
`;

export const command: Command = {
  path: ['down'],
  summary: 'tear down the environment: no process, mount or state left behind',
  usage: USAGE,
  async run(argv, ctx) {
    const { values } = parseFlags<{ name?: string; all?: boolean }>('down', argv, {
      name: { type: 'string' },
      all: { type: 'boolean' },
    });
    const names = values.all
      ? await listEnvironmentNames(ctx.env)
      : [values.name ?? ctx.env.CREDPROV_ENV_NAME ?? 'default'];
    const progress = stderrProgress();
    for (const name of names) {
      const env = await readEnvironment(name, ctx.env);
      // No env.json: a crashed or half-done local up; the local provider knows how to clear it.
      const provider = providerByName(env?.provider ?? 'local', { log: ctx.log, env: ctx.env });
      await provider.down(env ?? name, progress);
    }
    if (ctx.json) printJson(ctx, { stopped: names });
    return 0;
  },
};
