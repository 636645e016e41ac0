// Each environment's pods live under their own cgroup root
// (/credprov-<name>/kubepods/…), so two environments on one host never share
// (or, on teardown, remove) each other's QoS cgroups. The kubelet refuses a
// cgroupRoot that does not exist, so it is created in every hierarchy first.
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Step } from '../context.ts';
import { hostIdentity } from '../identity.ts';

export const CGROUP_FS = '/sys/fs/cgroup';

/** Mounted hierarchies (cgroup v1 controllers, or the single v2 tree); comounted aliases like cpu,cpuacct are symlinks and skipped. */
export async function cgroupHierarchies(fsRoot = CGROUP_FS): Promise<string[]> {
  // cgroup v2: one unified tree, recognisable by cgroup.controllers at its top.
  if (await exists(join(fsRoot, 'cgroup.controllers'))) return [fsRoot];
  const out: string[] = [];
  for (const e of await readdir(fsRoot, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory() && !e.isSymbolicLink()) out.push(join(fsRoot, e.name));
  }
  return out;
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

export const createCgroupRoot: Step = {
  name: 'cgroup root',
  async run(ctx) {
    // The second node's root lies inside the first's: both made here, one tree removed on down.
    const id = hostIdentity(ctx.state.name);
    const roots = ctx.state.secondNode ? [id.cgroupRoot, id.second.cgroupRoot] : [id.cgroupRoot];
    for (const h of await cgroupHierarchies()) for (const r of roots) await mkdir(join(h, r), { recursive: true });
  },
};
