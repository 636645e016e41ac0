// The kubelet refuses a loopback node IP ("nodeIP can't be loopback address")
// and then publishes no address at all, so the API server cannot reach it for
// logs or exec. An empty bridge (no dummy module on every kernel) with a private /32 gives the node an address
// that exists only on this host; teardown deletes it.
import { execa } from 'execa';
import { CommandError } from '../../../core/errors.ts';
import type { Step } from '../context.ts';

export const createNodeAddress: Step = {
  name: 'node address',
  async run(ctx) {
    const { nodeLink, nodeIP, secondNode } = ctx.state;
    const ip = async (args: string[]) => {
      const r = await execa('ip', args, { reject: false, all: true });
      if (r.exitCode !== 0)
        throw new CommandError(`ip ${args.join(' ')} failed`, { argv: ['ip', ...args], output: String(r.all ?? '') });
    };
    const exists = (await execa('ip', ['link', 'show', nodeLink], { reject: false })).exitCode === 0;
    if (!exists) await ip(['link', 'add', nodeLink, 'type', 'bridge']);
    // Both nodes' addresses on the one link: teardown removes them with it.
    for (const a of [nodeIP, ...(secondNode ? [secondNode.nodeIP] : [])])
      await ip(['addr', 'replace', `${a}/32`, 'dev', nodeLink]);
    await ip(['link', 'set', nodeLink, 'up']);
  },
};
