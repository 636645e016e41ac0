// The node's container images behind the kubelet's back (capability
// hostContainerd): imported (the kubelet then finds images it never pulled),
// listed by digest and removed with ctr in the CRI's namespace, as `crictl
// rmi` would. What KEP-2535 suites do to the node between two pods.
import { rm, writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import type { Environment } from '../cluster/provider.ts';
import { CommandError } from '../core/errors.ts';

function ctrArgs(env: Environment, args: string[]): [string, string[]] {
  if (!env.containerd) throw new Error(`environment ${env.name} has no containerd the harness can reach`);
  return [env.containerd.ctr, ['--address', env.containerd.address, '--namespace', 'k8s.io', ...args]];
}

async function ctr(env: Environment, args: string[]): Promise<string> {
  const [bin, argv] = ctrArgs(env, args);
  const r = await execa(bin, argv, { reject: false, all: true, timeout: 120_000 });
  if (r.exitCode !== 0)
    throw new CommandError(`ctr ${args.slice(0, 2).join(' ')} failed`, {
      argv: [bin, ...argv],
      output: String(r.all ?? ''),
    });
  return r.stdout;
}

/** Imports an OCI archive into the CRI namespace, unpacked: the kubelet sees images it never pulled. */
export async function importImages(env: Environment, archive: Buffer, file: string): Promise<void> {
  await writeFile(file, archive);
  try {
    await ctr(env, ['images', 'import', file]);
  } finally {
    await rm(file, { force: true });
  }
}

/** containerd's image names whose target is `manifestDigest` (the tag, the repo digest and the CRI's `sha256:<id>` ref). */
export async function imageNames(env: Environment, manifestDigest: string): Promise<string[]> {
  const out = await ctr(env, ['images', 'ls']);
  return out
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.includes(manifestDigest))
    .map((f) => f[0]!);
}

/** Removes every image whose name contains `needle` (a run's own images, at the end). */
export async function removeImagesNamed(env: Environment, needle: string): Promise<number> {
  const names = (await ctr(env, ['images', 'ls', '-q']))
    .split('\n')
    .map((l) => l.trim())
    .filter((n) => n.includes(needle));
  for (let i = 0; i < names.length; i += 100) await ctr(env, ['images', 'rm', ...names.slice(i, i + 100)]);
  return names.length;
}

/** Removes an image behind the kubelet's back (every name of it, as `crictl rmi` would). */
export async function removeImage(env: Environment, manifestDigest: string): Promise<string[]> {
  const names = await imageNames(env, manifestDigest);
  if (names.length > 0) await ctr(env, ['images', 'rm', ...names]);
  return names;
}
