// The environment's data dir (etcd, both nodes' containerd roots and kubelet
// roots, pod logs) is a tmpfs of its own: after a run of ~150 pods removing
// containerd's content and snapshots from disk took over a second of `down`;
// a tmpfs goes with the one unmount teardown does anyway. Where no tmpfs can
// be mounted (a host that forbids it), the dir stays on disk and only `down`
// is slower.
import { mkdir, readFile } from 'node:fs/promises';
import { execa } from 'execa';
import type { Step } from '../context.ts';

/** The tmpfs's source name in /proc/mounts: names the environment it belongs to. */
export function dataMountSource(envName: string): string {
  return `credprov-${envName}`;
}

export const mountData: Step = {
  name: 'data dir on tmpfs',
  async run(ctx) {
    const dir = ctx.layout.data;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const mounts = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
    if (mounts.split('\n').some((l) => l.split(' ')[4] === dir)) return;
    const r = await execa('mount', ['-t', 'tmpfs', '-o', 'mode=0700', dataMountSource(ctx.state.name), dir], {
      reject: false,
      all: true,
    });
    if (r.exitCode !== 0) ctx.log.warn(`no tmpfs for ${dir} (${String(r.all ?? '').trim()}): its data stays on disk`);
  },
};
