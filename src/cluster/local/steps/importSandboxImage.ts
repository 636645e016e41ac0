// The sandbox (pause) image must already be in containerd: the harness has no
// route to registry.k8s.io. It is imported into the CRI namespace and pinned
// so kubelet image GC never removes it.
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { execa } from 'execa';
import { CommandError } from '../../../core/errors.ts';
import type { Step } from '../context.ts';

export const importSandboxImage: Step = {
  name: 'import sandbox image',
  async run(ctx) {
    const b = ctx.state.binaries;
    const archive = ctx.node.files.sandboxArchive;
    await mkdir(dirname(archive), { recursive: true });
    await ctx.sandboxImage.writeArchive(archive);
    try {
      const ctr = (args: string[]) =>
        execa(b.ctr, ['--address', ctx.node.files.containerdSocket, '--namespace', 'k8s.io', ...args], {
          reject: false,
          all: true,
        });
      const imported = await ctr(['images', 'import', '--no-unpack', archive]);
      if (imported.exitCode !== 0)
        throw new CommandError('ctr images import of the sandbox image failed', {
          argv: [b.ctr, 'images', 'import', archive],
          output: String(imported.all ?? ''),
        });
      const label = await ctr(['images', 'label', ctx.state.sandboxImageRef, 'io.cri-containerd.pinned=pinned']);
      if (label.exitCode !== 0)
        throw new CommandError('labelling the sandbox image as pinned failed', {
          argv: [b.ctr, 'images', 'label', ctx.state.sandboxImageRef],
          output: String(label.all ?? ''),
        });
    } finally {
      await rm(archive, { force: true });
    }
  },
};
