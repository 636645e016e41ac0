// credprov registry down: stop registries started by `registry up`, and remove
// their processes, /etc/hosts lines and state dirs, also a crashed run's.
import { basename } from 'node:path';
import { rm } from 'node:fs/promises';
import { HostsFile } from '../core/hosts.ts';
import { UsageError, wrap } from '../core/errors.ts';
import { listStates, pruneRegistryHosts, teardown, type RegistryState, removeContainer } from '../../registry/index.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';

export const command: Command = {
  path: ['registry', 'down'],
  summary: 'stop registries started by credprov',
  usage: `Usage: credprov registry down [--name N | --all]

Stops the named registry (default "default"), or every registry with --all:
kills its registry and token server processes, removes its /etc/hosts line and
its state dir. Also clears /etc/hosts lines left by registries whose state is
gone. Prints {"stopped":[names]} on stdout. Stopping a registry that is not
there is not an error.
`,
  async run(argv, ctx) {
    const { values } = parseFlags<{ name?: string; all?: boolean }>('registry down', argv, {
      name: { type: 'string' },
      all: { type: 'boolean' },
    });
    if (values.all && values.name) throw new UsageError('registry down: give --name or --all, not both');
    const states = await listStates(ctx.env);
    const wanted = values.all ? states : states.filter((s) => basename(s.dir) === (values.name ?? 'default'));
    const stopped: string[] = [];
    for (const s of wanted) {
      const name = basename(s.dir);
      try {
        if (s.state) await teardown(s.state, { logger: ctx.log, ...containerRemover(s.state) });
        else await rm(s.dir, { recursive: true, force: true });
      } catch (err) {
        throw wrap(err, `stopping registry ${name}`);
      }
      stopped.push(name);
      ctx.log.info(`stopped registry ${name}`);
    }
    const live = new Set((await listStates(ctx.env)).map((s) => basename(s.dir)));
    // Also the lines of registries whose state is gone, and of test runs that died.
    const pruned = await pruneRegistryHosts(new HostsFile(), {
      cliNames: live,
      ...(values.all ? {} : { only: values.name ?? 'default' }),
    });
    for (const o of pruned) ctx.log.info(`removed stale /etc/hosts entry of ${o}`);
    ctx.stdout(`${JSON.stringify({ stopped })}\n`);
    return 0;
  },
};

function containerRemover(s: RegistryState): { removeContainer?: (id: string) => Promise<void> } {
  const docker = s.docker;
  return docker ? { removeContainer: (id) => removeContainer(docker, id) } : {};
}
